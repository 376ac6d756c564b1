// Validates Kubernetes objects against the Kubernetes OpenAPI schemas, with the
// models of the kubernetes-models package (ESM only, hence a script of its own
// that the Jest spec runs). Reads a JSON array of objects on stdin; prints a JSON
// array of problems, empty when every object is valid.
import { readFileSync } from 'node:fs';

const groups = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
};

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const object of objects) {
  const what = `${object?.kind ?? '?'} ${object?.metadata?.name ?? '?'}`;
  const path = groups[object?.apiVersion];
  const Model = path && (await import(path))[object.kind];
  if (!Model) {
    problems.push(`${what}: no schema known for ${object?.apiVersion} ${object?.kind}`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.stdout.write(JSON.stringify(problems));
