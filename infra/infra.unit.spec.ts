import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
// config.ts only: the package entry would load every service for two constants.
import { CONFIG_ENV_NAMES, ROLES } from '../libs/runtime/src/config.ts';

/**
 * The deployment manifests are not run by CI (no Docker engine, no cluster). This suite keeps
 * them honest where it can: every environment name given to a StrataGate process is one that
 * ConfigSchema knows (an unknown name would be ignored silently at run time), and every role
 * named is a real role. Third-party containers (Postgres, brokers, collector) are not checked.
 */

const INFRA_DIR = fileURLToPath(new URL('.', import.meta.url));
const KNOWN_ENV = new Set(CONFIG_ENV_NAMES);
const KNOWN_ROLES = new Set<string>(ROLES);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** One environment name or role found in a manifest, with where it was found. */
interface Finding {
  name: string;
  where: string;
}

interface Scan {
  envNames: Finding[];
  roles: Finding[];
  /** StrataGate workloads seen: compose services and k8s containers running the image. */
  workloads: string[];
  /** Problems that make the check impossible (unparsable file, envFrom of an unknown object). */
  errors: string[];
}

interface ParsedFile {
  path: string;
  docs: unknown[];
}

/** The StrataGate image, by build file or by name (`stratagate`, `…/stratagate:tag`). */
function isStrataGateImage(image: unknown): boolean {
  return typeof image === 'string' && /(^|\/)stratagate([:@]|$)/.test(image);
}

function isStrataGateComposeService(service: Obj): boolean {
  const build = service.build;
  const dockerfile = isObj(build) ? build.dockerfile : undefined;
  if (typeof dockerfile === 'string' && /(^|\/)infra\/Dockerfile$/.test(dockerfile)) return true;
  return isStrataGateImage(service.image);
}

/** `--role x`, `--role=x` in a command/args array or string. */
function rolesInCommand(command: unknown): string[] {
  const words = Array.isArray(command)
    ? command.map(String)
    : typeof command === 'string'
      ? command.split(/\s+/)
      : [];
  const roles: string[] = [];
  words.forEach((word, i) => {
    if (word === '--role' && i + 1 < words.length) roles.push(...words[i + 1]!.split(','));
    else if (word.startsWith('--role=')) roles.push(...word.slice('--role='.length).split(','));
  });
  return roles.map((r) => r.trim());
}

/** STRATAGATE_ROLES takes a comma list or `all`. */
function rolesInRolesEnv(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim() === 'all') return [];
  return value.split(',').map((r) => r.trim());
}

function scanCompose(file: string, doc: Obj, scan: Scan): void {
  for (const [serviceName, raw] of Object.entries(obj(doc.services))) {
    const service = obj(raw);
    if (!isStrataGateComposeService(service)) continue;
    const where = `${file} services.${serviceName}`;
    scan.workloads.push(where);
    if (service.env_file !== undefined) {
      scan.errors.push(`${where}: env_file cannot be checked; list the names under environment:`);
    }
    const env = service.environment;
    const entries: [string, unknown][] = Array.isArray(env)
      ? env.map((e) => {
          const [name, ...rest] = String(e).split('=');
          return [name!.trim(), rest.length > 0 ? rest.join('=') : undefined];
        })
      : Object.entries(obj(env));
    for (const [name, value] of entries) {
      scan.envNames.push({ name, where: `${where}.environment` });
      if (name === 'STRATAGATE_ROLES') {
        for (const role of rolesInRolesEnv(value)) scan.roles.push({ name: role, where });
      }
    }
    for (const role of rolesInCommand(service.command)) scan.roles.push({ name: role, where });
    for (const role of rolesInCommand(service.entrypoint)) scan.roles.push({ name: role, where });
  }
}

function podSpecOf(doc: Obj): Obj | null {
  const spec = obj(doc.spec);
  switch (doc.kind) {
    case 'Pod':
      return spec;
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
      return obj(obj(spec.template).spec);
    case 'CronJob':
      return obj(obj(obj(obj(spec.jobTemplate).spec).template).spec);
    default:
      return null;
  }
}

/** Keys of a ConfigMap or Secret: each becomes an environment name when loaded with envFrom. */
function dataKeys(doc: Obj): string[] {
  return [
    ...Object.keys(obj(doc.data)),
    ...Object.keys(obj(doc.stringData)),
    ...Object.keys(obj(doc.binaryData)),
  ];
}

function scanKubernetes(files: ParsedFile[], scan: Scan): void {
  // Every object of that kind and name counts (a duplicate is kustomize's error to report).
  const sources = new Map<string, { doc: Obj; file: string }[]>();
  for (const { path, docs } of files) {
    for (const doc of docs.filter(isObj)) {
      if (doc.kind === 'ConfigMap' || doc.kind === 'Secret') {
        const ref = `${doc.kind}/${String(obj(doc.metadata).name)}`;
        sources.set(ref, [...(sources.get(ref) ?? []), { doc, file: path }]);
      }
    }
  }
  for (const { path, docs } of files) {
    for (const doc of docs.filter(isObj)) {
      const pod = podSpecOf(doc);
      if (!pod) continue;
      const workload = `${path} ${String(doc.kind)}/${String(obj(doc.metadata).name)}`;
      for (const container of [...list(pod.initContainers), ...list(pod.containers)].map(obj)) {
        if (!isStrataGateImage(container.image)) continue;
        const where = `${workload} container ${String(container.name)}`;
        scan.workloads.push(where);
        for (const env of list(container.env).map(obj)) {
          const name = String(env.name);
          scan.envNames.push({ name, where: `${where} env` });
          if (name === 'STRATAGATE_ROLES') {
            for (const role of rolesInRolesEnv(env.value)) scan.roles.push({ name: role, where });
          }
        }
        for (const from of list(container.envFrom).map(obj)) {
          const prefix = typeof from.prefix === 'string' ? from.prefix : '';
          const ref = isObj(from.configMapRef)
            ? `ConfigMap/${String(from.configMapRef.name)}`
            : isObj(from.secretRef)
              ? `Secret/${String(from.secretRef.name)}`
              : null;
          const found = ref ? (sources.get(ref) ?? []) : [];
          if (!ref || found.length === 0) {
            scan.errors.push(`${where}: envFrom ${ref ?? '?'} is not defined under infra/`);
            continue;
          }
          for (const source of found) {
            for (const key of dataKeys(source.doc)) {
              scan.envNames.push({ name: prefix + key, where: `${source.file} ${ref} (${where})` });
            }
            const rolesValue =
              obj(source.doc.data).STRATAGATE_ROLES ?? obj(source.doc.stringData).STRATAGATE_ROLES;
            for (const role of rolesInRolesEnv(rolesValue)) scan.roles.push({ name: role, where });
          }
        }
        for (const role of [
          ...rolesInCommand(container.command),
          ...rolesInCommand(container.args),
        ]) {
          scan.roles.push({ name: role, where });
        }
      }
    }
  }
}

/** `ENV A=1 B=2` and the legacy `ENV A 1`, with line continuations. */
function dockerfileEnvNames(text: string): string[] {
  const names: string[] = [];
  const logical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const line of logical) {
    const m = /^\s*ENV\s+(.*)$/i.exec(line);
    if (!m) continue;
    const rest = m[1]!.trim();
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
      const pair = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g;
      for (const p of rest.matchAll(pair)) names.push(p[1]!);
    } else {
      names.push(rest.split(/\s+/)[0]!);
    }
  }
  return names;
}

function parseYaml(path: string, text: string, scan: Scan): ParsedFile {
  // merge: compose files share settings through `<<: *anchor`.
  const docs = parseAllDocuments(text, { merge: true });
  const parsed: unknown[] = [];
  for (const doc of docs) {
    for (const error of doc.errors) scan.errors.push(`${path}: ${error.message}`);
    parsed.push(doc.toJS());
  }
  return { path, docs: parsed };
}

/** Scans YAML texts and Dockerfiles (path → text). Pure, so the negative cases below reuse it. */
function scanTexts(files: Map<string, string>): Scan {
  const scan: Scan = { envNames: [], roles: [], workloads: [], errors: [] };
  const yamlFiles: ParsedFile[] = [];
  for (const [path, text] of files) {
    if (/(^|\/)Dockerfile[^/]*$/.test(path) && !path.endsWith('.dockerignore')) {
      for (const name of dockerfileEnvNames(text)) {
        scan.envNames.push({ name, where: `${path} ENV` });
      }
    } else if (/\.ya?ml$/.test(path)) {
      yamlFiles.push(parseYaml(path, text, scan));
    }
  }
  for (const { path, docs } of yamlFiles) {
    for (const doc of docs.filter(isObj)) {
      if (isObj(doc.services)) scanCompose(path, doc, scan);
    }
  }
  scanKubernetes(
    yamlFiles.map((f) => ({
      ...f,
      docs: f.docs.filter((d) => isObj(d) && 'apiVersion' in d && 'kind' in d),
    })),
    scan,
  );
  return scan;
}

function infraFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ya?ml$/.test(entry.name) || /^Dockerfile/.test(entry.name)) {
        files.set(relative(dir, full), readFileSync(full, 'utf8'));
      }
    }
  };
  walk(dir);
  return files;
}

const unknownEnv = (scan: Scan) =>
  scan.envNames.filter((f) => !KNOWN_ENV.has(f.name)).map((f) => `${f.name} in ${f.where}`);
const unknownRoles = (scan: Scan) =>
  scan.roles.filter((f) => !KNOWN_ROLES.has(f.name)).map((f) => `${f.name} in ${f.where}`);

describe('infra/ manifests', () => {
  const files = infraFiles(INFRA_DIR);
  const scan = scanTexts(files);

  it('finds the compose file, the k8s manifests and the Dockerfile', () => {
    const paths = [...files.keys()];
    expect(paths).toContain('docker-compose.yml');
    expect(paths).toContain('Dockerfile');
    expect(paths).toContain(join('k8s', 'kustomization.yaml'));
    expect(scan.errors).toEqual([]);
    // Not vacuous: migrate + four roles in compose, and in k8s.
    expect(
      scan.workloads.filter((w) => w.startsWith('docker-compose.yml')).length,
    ).toBeGreaterThanOrEqual(5);
    expect(scan.workloads.filter((w) => w.startsWith('k8s')).length).toBeGreaterThanOrEqual(5);
    expect(scan.envNames.map((f) => f.name)).toContain('DATABASE_URL');
  });

  it('sets only environment names that ConfigSchema knows (CONFIG_ENV_NAMES)', () => {
    expect(unknownEnv(scan)).toEqual([]);
  });

  it('names only real roles, and deploys every role in compose and in k8s', () => {
    expect(unknownRoles(scan)).toEqual([]);
    const deployed = (prefix: string) =>
      new Set(scan.roles.filter((r) => r.where.startsWith(prefix)).map((r) => r.name));
    expect([...deployed('docker-compose.yml')].sort()).toEqual([...ROLES].sort());
    expect([...deployed('k8s')].sort()).toEqual([...ROLES].sort());
  });

  it('probes /readyz and /healthz on the HTTP roles only (projector and consolidator serve none)', () => {
    const deployments = [...files]
      .filter(([path]) => path.startsWith('k8s'))
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => obj(d.toJS())))
      .filter((d) => d.kind === 'Deployment');
    const probes = new Map<string, string[]>();
    for (const d of deployments) {
      const container = obj(list(obj(podSpecOf(d)).containers)[0]);
      const [role] = rolesInCommand(container.args);
      const paths = ['startupProbe', 'readinessProbe', 'livenessProbe'].map(
        (p) => `${p}:${String(obj(obj(container[p]).httpGet).path ?? '-')}`,
      );
      probes.set(role!, paths);
    }
    for (const role of ['ingest', 'query']) {
      expect(probes.get(role)).toEqual([
        'startupProbe:/healthz',
        'readinessProbe:/readyz',
        'livenessProbe:/healthz',
      ]);
    }
    for (const role of ['projector', 'consolidator']) {
      expect(probes.get(role)).toEqual(['startupProbe:-', 'readinessProbe:-', 'livenessProbe:-']);
    }
  });
});

describe('the infra check itself', () => {
  const compose = (env: string, command = '[serve, --role, ingest]') =>
    new Map([
      [
        'docker-compose.yml',
        `x-sg: &sg
  build: { context: .., dockerfile: infra/Dockerfile }
  environment:
${env}
services:
  postgres:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: x }
  ingest:
    <<: *sg
    command: ${command}
`,
      ],
    ]);

  it('reports an unknown name in a StrataGate compose service (through a merge key)', () => {
    const scan = scanTexts(compose('    DATABASE_URL: postgres://x\n    STRATAGATE_PROT: "1"'));
    expect(unknownEnv(scan)).toEqual([
      'STRATAGATE_PROT in docker-compose.yml services.ingest.environment',
    ]);
  });

  it('ignores third-party services and reads list-style environment', () => {
    const scan = scanTexts(
      compose('    - DATABASE_URL=postgres://x\n    - NATS_URL=nats://n:4222'),
    );
    expect(unknownEnv(scan)).toEqual([
      'NATS_URL in docker-compose.yml services.ingest.environment',
    ]);
  });

  it('reports unknown roles in --role and STRATAGATE_ROLES', () => {
    const scan = scanTexts(
      compose('    STRATAGATE_ROLES: ingest,indexer', "[serve, '--role=projector,archivist']"),
    );
    expect(unknownRoles(scan)).toEqual([
      'indexer in docker-compose.yml services.ingest',
      'archivist in docker-compose.yml services.ingest',
    ]);
  });

  it('reports unknown keys of a ConfigMap or Secret loaded with envFrom, and unknown env names', () => {
    const k8s = `apiVersion: v1
kind: ConfigMap
metadata: { name: cfg }
data: { STRATAGATE_PORT: '8787', STRATAGATE_THEME: x }
---
apiVersion: v1
kind: Secret
metadata: { name: sec }
stringData: { DATABASE_URL: postgres://x }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: q }
spec:
  template:
    spec:
      containers:
        - name: q
          image: registry.example.com/stratagate:1
          args: [serve, --role, query]
          env: [{ name: STRATAGATE_STORAGE_ENGINE, value: kafka }]
          envFrom:
            - configMapRef: { name: cfg }
            - secretRef: { name: sec }
            - secretRef: { name: missing }
        - name: sidecar
          image: otel/opentelemetry-collector:0.120.0
          env: [{ name: GOMEMLIMIT, value: 100MiB }]
`;
    const scan = scanTexts(new Map([['k8s/app.yaml', k8s]]));
    expect(unknownEnv(scan)).toEqual([
      'STRATAGATE_STORAGE_ENGINE in k8s/app.yaml Deployment/q container q env',
      'STRATAGATE_THEME in k8s/app.yaml ConfigMap/cfg (k8s/app.yaml Deployment/q container q)',
    ]);
    expect(scan.errors).toEqual([
      'k8s/app.yaml Deployment/q container q: envFrom Secret/missing is not defined under infra/',
    ]);
  });

  it('reads Dockerfile ENV in both forms', () => {
    const scan = scanTexts(
      new Map([
        [
          'Dockerfile',
          'FROM node\nENV STRATAGATE_HOST=0.0.0.0 \\\n    NODE_ENV="a b"\nENV FOO bar\n',
        ],
      ]),
    );
    expect(scan.envNames.map((f) => f.name)).toEqual(['STRATAGATE_HOST', 'NODE_ENV', 'FOO']);
  });
});
