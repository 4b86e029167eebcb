// What the StatefulSet and Job controllers and the kubelet would make of a rendered manifest, as
// plain pods that `podman kube play` runs (podman 4 plays Pods, not StatefulSets or Jobs):
//   - StatefulSet: REPLICAS pods named NAME-0 ... with the pod-index label, each with its own
//     recordings volume (volumeClaimTemplates);
//   - Job (Indexed): COMPLETIONS pods with the job-completion-index annotation;
//   - the kubelet's part: env from fieldRef, secretKeyRef and configMapKeyRef resolved, and
//     $(VAR) in args expanded.
// What differs from a cluster, for this machine (no cluster network, no volume provisioner):
//   - hostNetwork, with the API port moved to PORT_BASE + ordinal so the shards do not collide
//     (and the containers' declared ports left out: podman would map them);
//   - --peers dns:SERVICE:PORT (VFILTER_PEERS) becomes the pods' loopback addresses, which is what
//     the headless Service's name resolves to in a cluster;
//   - ConfigMap, Secret and PersistentVolumeClaim volumes become host folders under DIR;
//   - probes are left out (podman would turn them into systemd timers); the test asks /healthz
//     and /readyz itself.
//   node pods_from_manifests.mjs RENDERED.yaml DIR [--port-base N] > pods.yaml
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

const [renderedPath, dir] = process.argv.slice(2);
const portBase = Number(process.argv.includes("--port-base") ? process.argv[process.argv.indexOf("--port-base") + 1] : 18080);
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
    c.env = Object.entries(env).map(([k, v]) => ({ name: k, value: v }));
    c.args = (c.args ?? []).map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, v) => env[v] ?? all));
    delete c.envFrom;  // an optional Secret the test does not make
  }
  spec.volumes = (spec.volumes ?? []).map((v) => {
    if (v.configMap) return { name: v.name, hostPath: { path: configFolder("ConfigMap", v.configMap.name), type: "Directory" } };
    if (v.secret) return { name: v.name, hostPath: { path: configFolder("Secret", v.secret.secretName), type: "Directory" } };
    if (v.persistentVolumeClaim)
      return { name: v.name, hostPath: { path: folder(join(dir, "pvc", v.persistentVolumeClaim.claimName)), type: "Directory" } };
    return v;
  });
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
process.stdout.write(pods.map((p) => stringify(p)).join("---\n"));
