// deploy/kubernetes/: every object is valid against the Kubernetes API's schemas (the
// kubernetes-models package's validators, generated from the API's OpenAPI document, and its
// types: the TypeScript compiler finds a field the API does not have), and the
// manifests hang together the way the gateway needs: the configuration they give it loads, the
// probes and the scrape ports are the routes and ports it serves, the Service and the
// PodDisruptionBudget select the API's pods, and a stop gets its time.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/platform/config.ts';

const DIR = 'deploy/kubernetes';

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[]; terminationGracePeriodSeconds?: number; securityContext?: { runAsNonRoot?: boolean } };
}

const kustomization = parseAllDocuments(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as {
  resources: string[];
  images: Array<{ name: string; newName?: string; newTag?: string }>;
};

const objects: KubeObject[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => {
    assert.deepEqual(doc.errors, [], `${file} is YAML`);
    return doc.toJS() as KubeObject;
  }),
);

function find(kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} is in the kustomization`);
  return found;
}

const template = (o: KubeObject) => (o.spec as { template: PodTemplate }).template;
const onlyContainer = (o: KubeObject) => {
  const { containers } = template(o).spec;
  assert.equal(containers.length, 1, `${o.kind}/${o.metadata.name} runs one container`);
  return containers[0]!;
};

const api = () => find('Deployment', 'fiscal-gateway-api');
const workers = () => find('Deployment', 'fiscal-gateway-workers');
const migrate = () => find('Job', 'fiscal-gateway-migrate');

/** The environment a container starts with: its ConfigMaps and Secrets (envFrom), then its own env. */
function environmentOf(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef)
      Object.assign(env, (find('ConfigMap', source.configMapRef.name) as unknown as { data: Record<string, string> }).data);
    if (source.secretRef)
      Object.assign(env, (find('Secret', source.secretRef.name) as unknown as { stringData: Record<string, string> }).stringData);
  }
  for (const { name, value } of container.env ?? []) if (value !== undefined) env[name] = value;
  return env;
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  test('the kustomization lists every manifest in the directory, and nothing else', () => {
    const files = readdirSync(DIR).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    assert.deepEqual([...kustomization.resources].sort(), files.sort());
  });

  test('every object is valid against the Kubernetes API schemas', async () => {
    assert.equal(objects.length, 7);
    for (const object of objects) {
      // kubernetes-models/<group>/<version>/<kind> (the core group: kubernetes-models/v1/<kind>).
      const models = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = models[object.kind];
      assert.ok(Model, `${object.apiVersion} ${object.kind} is a Kubernetes kind`);
      assert.doesNotThrow(() => new Model(object).validate(), `${object.kind}/${object.metadata.name}`);
    }
  });

  test('the schema check fails for an object Kubernetes would refuse', async () => {
    const { Deployment } = await import('kubernetes-models/apps/v1/Deployment');
    const broken = structuredClone(api()) as unknown as { spec: { template: PodTemplate } };
    (broken.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = 'http';
    assert.throws(() => new Deployment(broken as never).validate(), /containerPort must be integer/);
  });

  /**
   * The TypeScript compiler's errors for `objects` written as literals of the package's interface
   * of their kind (`IDeployment`, …): a field the Kubernetes API does not have is an excess
   * property, which the schema validators above let through (the API's schema allows unknown
   * fields; `kubectl apply` refuses them).
   */
  function typeErrors(checked: KubeObject[]): string[] {
    const cache = join('node_modules', '.cache', 'fiscal-gateway');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'k8s-types-'));
    try {
      const file = join(dir, 'objects.ts');
      writeFileSync(
        file,
        checked
          .map((object, i) => {
            const path = `kubernetes-models/${object.apiVersion}/${object.kind}`;
            return `import type { I${object.kind} as T${i} } from '${path}';\nexport const object${i}: T${i} = ${JSON.stringify(object, null, 2)};\n`;
          })
          .join('\n'),
      );
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        types: [],
      });
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("no object has a field the Kubernetes API does not know (the package's types, by the TypeScript compiler)", () => {
    assert.deepEqual(typeErrors(objects), []);
    const misspelt = structuredClone(api()) as unknown as { spec: { template: PodTemplate } };
    (misspelt.spec.template.spec.containers[0]! as unknown as Record<string, unknown>).readinesProbe = {
      httpGet: { path: '/readyz', port: 'http' },
    };
    assert.match(typeErrors([misspelt as unknown as KubeObject]).join('\n'), /readinesProbe"?' does not exist in type 'IContainer'/);
  });

  test('each workload runs the one image in its role, as a non-root user, with the configuration the gateway loads', () => {
    assert.deepEqual(
      kustomization.images.map((i) => i.name),
      ['fiscal-gateway'],
    );
    const roles = new Map([
      [api(), ['serve', '--api-only']],
      [workers(), ['serve', '--workers-only']],
      [migrate(), ['migrate']],
    ]);
    for (const [workload, args] of roles) {
      const container = onlyContainer(workload);
      assert.equal(container.image, 'fiscal-gateway', `${workload.metadata.name}: the kustomization's image`);
      assert.deepEqual(container.args, args);
      assert.equal(template(workload).spec.securityContext?.runAsNonRoot, true);
      const env = environmentOf(container);
      // The Secret's placeholders are of the right form: a start with them gets as far as the database.
      const config = loadConfig(env);
      assert.equal(config.env, 'production');
      assert.match(env.DATABASE_URL!, /^postgres:\/\//, 'PostgreSQL, named by DATABASE_URL');
      assert.ok(config.secretKey && config.adminToken);
      assert.ok(
        container.resources?.requests?.cpu && container.resources.requests.memory && container.resources.limits?.memory,
        `${workload.metadata.name}: requests and a memory limit`,
      );
    }
  });

  test('the probes and the scrape settings name the routes and ports each tier serves', () => {
    const apiContainer = onlyContainer(api());
    assert.deepEqual(apiContainer.ports, [{ name: 'http', containerPort: loadConfig(environmentOf(apiContainer)).port }]);
    assert.deepEqual(apiContainer.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
    assert.deepEqual(apiContainer.livenessProbe?.httpGet, { path: '/healthz', port: 'http' });

    const workersContainer = onlyContainer(workers());
    const metricsPort = loadConfig(environmentOf(workersContainer)).metricsPort;
    assert.ok(metricsPort, 'the workers open METRICS_PORT, their only port');
    assert.deepEqual(workersContainer.ports, [{ name: 'metrics', containerPort: metricsPort }]);
    assert.deepEqual(workersContainer.livenessProbe?.httpGet, { path: '/healthz', port: 'metrics' });

    for (const [workload, port] of [
      [api(), 8080],
      [workers(), metricsPort],
    ] as const) {
      assert.deepEqual(template(workload).metadata.annotations, {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
    }
  });

  test('the Service and the PodDisruptionBudget select exactly the API pods', () => {
    const apiLabels = template(api()).metadata.labels;
    const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    const service = find('Service', 'fiscal-gateway') as unknown as {
      spec: { selector: Record<string, string>; ports: Array<{ targetPort: string }> };
    };
    const pdb = find('PodDisruptionBudget', 'fiscal-gateway-api') as unknown as {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    for (const selector of [service.spec.selector, pdb.spec.selector.matchLabels]) {
      assert.ok(matches(selector, apiLabels), 'selects the API pods');
      for (const other of [workers(), migrate()])
        assert.ok(!matches(selector, template(other).metadata.labels), `not ${other.metadata.name}'s pods`);
    }
    assert.equal(service.spec.ports[0]!.targetPort, 'http');
  });

  test("a stop gets longer than the gateway's own shutdown timeout, so the gateway (not a SIGKILL) ends it", () => {
    for (const workload of [api(), workers()]) {
      const grace = template(workload).spec.terminationGracePeriodSeconds ?? 30;
      const { shutdownTimeoutMs } = loadConfig(environmentOf(onlyContainer(workload)));
      assert.ok(grace * 1000 > shutdownTimeoutMs + 5_000, `${workload.metadata.name}: ${grace} s`);
    }
  });
});
