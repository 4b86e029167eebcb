// What the StatefulSet and Job controllers and the kubelet would make of a rendered manifest, as
// plain pods that `podman kube play` runs (podman 4 plays Pods, not StatefulSets or Jobs):
//   - StatefulSet: REPLICAS pods named NAME-0 ... with the pod-index label, each with its own
//     recordings volume (volumeClaimTemplates);
//   - Job (Indexed): COMPLETIONS pods with the job-completion-index annotation;
//   - the kubelet's part: env from fieldRef, secretKeyRef and configMapKeyRef resolved, and
//     $(VAR) in command and args expanded.
// What differs from a cluster, for this machine (no cluster network, no volume provisioner):
//   - hostNetwork, with the API port moved to PORT_BASE + ordinal so the shards do not collide
//     (and the containers' declared ports left out: podman would map them);
//   - --peers dns:SERVICE:PORT (VFILTER_PEERS) becomes the pods' loopback addresses, which is what
//     the headless Service's name resolves to in a cluster;
//   - the other StatefulSets' pods (etcd's members) get a loopback address each, from 127.0.0.2
//     on (etcd-0, etcd-1...), which their names in the headless Service (etcd-0.etcd) resolve to
//     in every pod (DIR/hosts mounted as /etc/hosts); such a pod listens on that address where it
//     says 0.0.0.0. Their ports and the URLs naming them (the members' flags, VFILTER_STORE) stay
//     the manifest's;
//   - ConfigMap, Secret, PersistentVolumeClaim and emptyDir volumes become host folders under DIR
//     (an emptyDir one per pod);
//   - probes are left out (podman would turn them into systemd timers); the test asks /healthz
//     and /readyz itself.
//   node pods_from_manifests.mjs RENDERED.yaml DIR [--port-base N] [--pod NAME] > pods.yaml
//   (--pod: that pod only, to play it again after it was deleted)
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

const [renderedPath, dir] = process.argv.slice(2);
const portBase = Number(process.argv.includes("--port-base") ? process.argv[process.argv.indexOf("--port-base") + 1] : 18080);
const onlyPod = process.argv.includes("--pod") ? process.argv[process.argv.indexOf("--pod") + 1] : undefined;
const docs = parseAllDocuments(readFileSync(renderedPath, "utf8")).map((d) => d.toJS()).filter(Boolean);
const byKind = (kind, name) => docs.find((d) => d.kind === kind && d.metadata.name === name);

// A folder uid 10001 (the image's user) can write.
function folder(path) {
  mkdirSync(path, { recursive: true });
  chownSync(path, 10001, 10001);
  chmodSync(path, 0o775);
  return path;
}

function configFolder(kind, name) {
  const source = byKind(kind, name);
  if (!source) throw new Error(`${kind} ${name} is not in the rendered manifest`);
  const path = folder(join(dir, kind.toLowerCase(), name));
  for (const [key, value] of Object.entries(source.data ?? {}))
    writeFileSync(join(path, key), kind === "Secret" ? Buffer.from(value, "base64") : value);
  return path;
}

function resolveEnv(container, pod) {
  const values = {};
  for (const e of container.env ?? []) {
    let value = e.value;
    const from = e.valueFrom;
    if (from?.fieldRef) {
      const m = from.fieldRef.fieldPath.match(/^metadata\.(name|labels|annotations)(?:\['(.+)'\])?$/);
      if (!m) throw new Error(`fieldRef ${from.fieldRef.fieldPath} is not emulated`);
      value = m[1] === "name" ? pod.metadata.name : pod.metadata[m[1]]?.[m[2]];
    } else if (from?.secretKeyRef) {
      const s = byKind("Secret", from.secretKeyRef.name);
      value = s ? Buffer.from(s.data[from.secretKeyRef.key], "base64").toString() : undefined;
    } else if (from?.configMapKeyRef) {
      value = byKind("ConfigMap", from.configMapKeyRef.name)?.data?.[from.configMapKeyRef.key];
    }
    if (value === undefined) throw new Error(`env ${e.name} of ${pod.metadata.name} resolves to nothing`);
    // The kubelet expands $(VAR) of variables defined before this one.
    values[e.name] = String(value).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, v) => values[v] ?? all);
  }
  return values;
}

// The StatefulSet whose pods are the API shards (their port is VFILTER_API_PORT, moved per pod).
const servesApi = (set) => set.spec.template.spec.containers.some((c) => (c.env ?? []).some((e) => e.name === "VFILTER_API_PORT"));
// Every other StatefulSet's pods (etcd's members) -> a loopback address of their own, from
// 127.0.0.2 on, which their DNS names (POD.SERVICE, as the governing Service makes them) resolve
// to in every pod: their ports and every URL naming them stay as the manifest says.
const loopbackHosts = new Map();
let nextHost = 2;
for (const set of docs.filter((d) => d.kind === "StatefulSet" && !servesApi(d)))
  for (let i = 0; i < set.spec.replicas; ++i) loopbackHosts.set(`${set.metadata.name}-${i}.${set.spec.serviceName}`, `127.0.0.${nextHost++}`);
// podman gives host-network pods no hostAliases: the names go in an /etc/hosts of their own.
const hostsFile = resolve(dir, "hosts");
if (loopbackHosts.size) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(hostsFile, ["127.0.0.1 localhost", ...[...loopbackHosts].map(([name, ip]) => `${ip} ${name}`)].join("\n") + "\n");
  chmodSync(hostsFile, 0o644);
}
// Such a pod listens on its own address rather than on every one (0.0.0.0): the others are loopback too.
const listenOnOwn = (text, ip) => (ip ? text.replace(/\b0\.0\.0\.0:/g, `${ip}:`) : text);

function podFrom(template, name, ordinal, extra) {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { ...template.metadata.labels, ...extra.labels }, annotations: { ...template.metadata.annotations, ...extra.annotations } },
    spec: structuredClone(template.spec),
  };
  const spec = pod.spec;
  spec.hostNetwork = true;
  if (extra.restartPolicy) spec.restartPolicy = extra.restartPolicy;
  for (const c of spec.containers) {
    delete c.startupProbe;
    delete c.livenessProbe;
    delete c.readinessProbe;
    const env = resolveEnv(c, pod);
    if (env.VFILTER_API_PORT) env.VFILTER_API_PORT = String(portBase + ordinal);
    // No cluster DNS here: the headless Service's addresses are the pods' loopback ports.
    if (env.VFILTER_PEERS?.startsWith("dns:"))
      env.VFILTER_PEERS = Array.from({ length: extra.replicas ?? 1 }, (_, i) => `http://127.0.0.1:${portBase + i}`).join(",");
    delete c.ports;  // podman maps declared ports, which host networking does not take
    const ownHost = loopbackHosts.get(`${name}.${extra.serviceName}`);
    const expand = (a) => listenOnOwn(a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, v) => env[v] ?? all), ownHost);
    c.env = Object.entries(env).map(([k, v]) => ({ name: k, value: v }));
    if (c.command) c.command = c.command.map(expand);
    if (c.args) c.args = c.args.map(expand);
    delete c.envFrom;  // an optional Secret the test does not make
  }
  spec.volumes = (spec.volumes ?? []).map((v) => {
    if (v.configMap) return { name: v.name, hostPath: { path: configFolder("ConfigMap", v.configMap.name), type: "Directory" } };
    if (v.secret) return { name: v.name, hostPath: { path: configFolder("Secret", v.secret.secretName), type: "Directory" } };
    // podman plays an emptyDir as a named volume that every pod of that name shares: a folder per pod.
    if (v.emptyDir) return { name: v.name, hostPath: { path: folder(join(dir, "emptydir", name, v.name)), type: "Directory" } };
    if (v.persistentVolumeClaim)
      return { name: v.name, hostPath: { path: folder(join(dir, "pvc", v.persistentVolumeClaim.claimName)), type: "Directory" } };
    return v;
  });
  if (loopbackHosts.size) {
    spec.volumes.push({ name: "cluster-dns", hostPath: { path: hostsFile, type: "File" } });
    for (const c of spec.containers) (c.volumeMounts ??= []).push({ name: "cluster-dns", mountPath: "/etc/hosts", readOnly: true });
  }
  for (const claim of extra.claims ?? [])
    spec.volumes.push({ name: claim.metadata.name, hostPath: { path: folder(join(dir, "pvc", `${claim.metadata.name}-${name}`)), type: "Directory" } });
  return pod;
}

const pods = [];
for (const d of docs) {
  if (d.kind === "StatefulSet") {
    for (let i = 0; i < d.spec.replicas; ++i)
      pods.push(podFrom(d.spec.template, `${d.metadata.name}-${i}`, i, {
        labels: { "apps.kubernetes.io/pod-index": String(i), "statefulset.kubernetes.io/pod-name": `${d.metadata.name}-${i}` },
        claims: d.spec.volumeClaimTemplates,
        restartPolicy: "Always",
        replicas: d.spec.replicas,
        serviceName: d.spec.serviceName,
      }));
  } else if (d.kind === "Job") {
    if (d.spec.completionMode !== "Indexed") throw new Error(`Job ${d.metadata.name} is not Indexed`);
    for (let i = 0; i < d.spec.completions; ++i)
      pods.push(podFrom(d.spec.template, `${d.metadata.name}-${i}`, i, {
        annotations: { "batch.kubernetes.io/job-completion-index": String(i) },
        labels: { "batch.kubernetes.io/job-completion-index": String(i) },
      }));
  }
}
const chosen = onlyPod ? pods.filter((p) => p.metadata.name === onlyPod) : pods;
if (!chosen.length) throw new Error(`no pod ${onlyPod} in ${renderedPath}`);
process.stdout.write(chosen.map((p) => stringify(p)).join("---\n"));
