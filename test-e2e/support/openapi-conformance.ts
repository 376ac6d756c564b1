// The OpenAPI document held to what the platform really sends (ADR 0024). A
// client generated from the document must type every response: so each real
// response is validated, by a strict JSON Schema 2020-12 validator (Ajv), against
// the schema the document gives its operation and status, with every object
// closed (a field the server sends that the document lacks is a failure), every
// format checked and every request the server accepted checked against the
// request schema too. The document itself is checked apart: against the OAS 3.1
// schema, and for what a 3.1 reader would misread (3.0's `nullable`, objects
// whose fields it leaves untyped, statuses without a body schema).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RequestOptions, Response, TestPlatform } from './test-platform';

type Schema = Record<string, any>;
type Document = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
} & Record<string, any>;

/** Where the document's schemas live for Ajv: `#/components/schemas/X` becomes `<BASE>#/$defs/X`. */
const BASE = 'https://money-movement.invalid/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** OpenAPI's own Schema Object keywords beside JSON Schema's: annotations to a validator. */
const OPENAPI_SCHEMA_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];
const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments: `/external-accounts/cards` is preferred to `/external-accounts/{id}`. */
  literals: number;
  operation: Schema;
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const types = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];

/** Every subschema of a schema with its JSON pointer, the schema itself first. */
function* subschemas(schema: unknown, pointer: string): Generator<[Schema, string]> {
  if (!isObject(schema)) return;
  yield [schema, pointer];
  for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
    if (isObject(schema[key]))
      for (const [name, sub] of Object.entries(schema[key]))
        yield* subschemas(sub, `${pointer}/${key}/${escapePointer(name)}`);
  }
  for (const key of [
    'items',
    'additionalProperties',
    'unevaluatedProperties',
    'unevaluatedItems',
    'contains',
    'propertyNames',
    'not',
    'if',
    'then',
    'else',
  ]) {
    yield* subschemas(schema[key], `${pointer}/${key}`);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    if (Array.isArray(schema[key]))
      for (const [i, sub] of schema[key].entries()) yield* subschemas(sub, `${pointer}/${key}/${i}`);
  }
}

/** An object schema that says nothing about its fields: a generated client can only type it as a bag. */
function isFreeForm(schema: Schema): boolean {
  const objectTyped = types(schema).includes('object');
  if (!objectTyped) return false;
  if (schema.properties || schema.patternProperties || schema.allOf || schema.anyOf || schema.oneOf || schema.$ref)
    return false;
  const extra = schema.additionalProperties;
  return (
    extra === undefined ||
    extra === true ||
    (isObject(extra) && Object.keys(extra).filter((k) => k !== 'description').length === 0)
  );
}

/** A schema with no type at all (not a reference, a combination, an enum or a constant). */
function isUntyped(schema: Schema): boolean {
  return (
    schema.type === undefined &&
    !['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'enum', 'const', 'properties'].some((k) => k in schema)
  );
}

/** A copy for Ajv: references into the components resolved under BASE, and every object closed. */
function forValidator(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forValidator);
  if (!isObject(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // 3.0's `nullable` (which Ajv would honour) means nothing to a 3.1 reader: the document check reports it.
    if (key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && COMPONENT_REF.test(value))
      copy.$ref = `${BASE}#/$defs/${value.replace(COMPONENT_REF, '$1')}`;
    else if (key === 'enum' || key === 'const' || key === 'example' || key === 'examples' || key === 'default')
      copy[key] = value;
    else if (key === 'properties' || key === '$defs' || key === 'patternProperties')
      copy[key] = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, forValidator(v)]));
    else copy[key] = forValidator(value);
  }
  const objectSchema = types(copy).includes('object') || copy.properties !== undefined;
  // Closed: a field the server sends and the document does not name is an error. unevaluatedProperties
  // (not additionalProperties) so that fields named in allOf/anyOf/oneOf branches count as named.
  if (objectSchema && copy.additionalProperties === undefined && copy.unevaluatedProperties === undefined)
    copy.unevaluatedProperties = false;
  return copy;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const extra =
        e.keyword === 'unevaluatedProperties'
          ? ` "${e.params.unevaluatedProperty}"`
          : e.keyword === 'enum'
            ? ` ${JSON.stringify(e.params.allowedValues)}`
            : '';
      return `${e.instancePath || '/'} ${e.message}${extra} (${e.schemaPath})`;
    })
    .join('; ');
}

export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction | string>();
  /** `METHOD template` → the statuses the platform answered it with. */
  private readonly seen = new Map<string, Set<number>>();
  private problems: string[] = [];

  constructor(readonly document: Document) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    // Extensions (x-…) and OpenAPI's annotations are allowed in a Schema Object.
    const extensions = new Set<string>(OPENAPI_SCHEMA_KEYWORDS);
    for (const [schema] of this.allSchemas())
      for (const key of Object.keys(schema)) if (key.startsWith('x-')) extensions.add(key);
    for (const keyword of extensions) if (!this.ajv.getKeyword(keyword)) this.ajv.addKeyword({ keyword });
    this.ajv.addSchema({
      $id: BASE,
      $defs: Object.fromEntries(
        Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [name, forValidator(schema)]),
      ),
    });
    this.operations = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => {
          const segments = template.split('/');
          const pattern = new RegExp(
            `^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`,
          );
          return {
            method: method.toUpperCase(),
            template,
            pattern,
            literals: segments.filter((s) => !s.startsWith('{')).length,
            operation,
          };
        }),
    );
  }

  /** Every schema of the document (components, parameters, bodies, webhooks), each with its pointer. */
  private *allSchemas(): Generator<[Schema, string]> {
    for (const [name, schema] of Object.entries(this.document.components?.schemas ?? {}))
      yield* subschemas(schema, `#/components/schemas/${escapePointer(name)}`);
    for (const { method, template, operation, root } of [...this.operationList(), ...this.webhookList()]) {
      const at = `#/${root}/${escapePointer(template)}/${method}`;
      for (const [i, parameter] of (operation.parameters ?? []).entries())
        yield* subschemas(parameter.schema, `${at}/parameters/${i}/schema`);
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        yield* subschemas((media as Schema).schema, `${at}/requestBody/content/${escapePointer(type)}/schema`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [type, media] of Object.entries((response as Schema).content ?? {}))
          yield* subschemas(
            (media as Schema).schema,
            `${at}/responses/${status}/content/${escapePointer(type)}/schema`,
          );
      }
    }
  }

  private operationList(): Array<{ method: string; template: string; operation: Schema; root: string }> {
    return Object.entries(this.document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({ method, template, operation, root: 'paths' })),
    );
  }

  /** The operations of the document's `webhooks` (OpenAPI 3.1), keyed by event name. */
  private webhookList(): Array<{ method: string; template: string; operation: Schema; root: string }> {
    return Object.entries((this.document.webhooks ?? {}) as Record<string, Record<string, Schema>>).flatMap(
      ([name, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, operation]) => ({ method, template: name, operation, root: 'webhooks' })),
    );
  }

  /** The schema of the body posted for an event, from `webhooks`. */
  private webhookSchema(event: string): Schema | undefined {
    return (this.document.webhooks as Record<string, { post?: Schema }> | undefined)?.[event]?.post?.requestBody
      ?.content?.['application/json']?.schema;
  }

  /**
   * What `webhooks` must be: one POST per event of this version (and no other), each with a body
   * schema that compiles and an example that matches it.
   */
  webhookProblems(events: readonly string[]): string[] {
    const problems: string[] = [];
    const described = Object.keys(this.document.webhooks ?? {});
    for (const event of events) if (!described.includes(event)) problems.push(`webhooks: no entry for ${event}`);
    for (const name of described)
      if (!events.includes(name)) problems.push(`webhooks: ${name} is not an event of this version`);
    for (const { template: event, operation } of this.webhookList()) {
      const media = operation.requestBody?.content?.['application/json'];
      if (!media?.schema) {
        problems.push(`webhooks ${event}: no body schema`);
        continue;
      }
      if (media.example === undefined) problems.push(`webhooks ${event}: no example`);
      else problems.push(...this.checkWebhook(media.example).map((p) => `example: ${p}`));
    }
    return problems;
  }

  /** A body as posted to a webhook endpoint, against the schema `webhooks` gives its event. */
  checkWebhook(body: any): string[] {
    const event = body?.event ?? body?.eventType;
    const schema = typeof event === 'string' ? this.webhookSchema(event) : undefined;
    if (!schema) return [`webhook ${String(event)}: webhooks describes no such event`];
    const validate = this.validator(`webhook ${event}`, schema);
    if (typeof validate === 'string') return [`webhook ${event}: ${validate}`];
    return validate(body) ? [] : [`webhook ${event} (${body.id}): ${describeErrors(validate.errors)}`];
  }

  /** Every (method, path) the document lists, as `METHOD /path`. */
  routes(): string[] {
    return this.operations.map((o) => `${o.method} ${o.template}`);
  }

  /**
   * What a strict OpenAPI 3.1 reader would refuse or misread in the document: the 3.0 `nullable`
   * keyword, enums that leave out the null their type admits, schemas Ajv's strict mode refuses,
   * response objects whose fields are not described, and success statuses without a body schema.
   */
  documentProblems(): string[] {
    const problems: string[] = [];
    for (const [schema, pointer] of this.allSchemas()) {
      if ('nullable' in schema)
        problems.push(
          `${pointer}: "nullable" is OpenAPI 3.0; in 3.1 null is a type (type: [T, "null"], or anyOf with {type: "null"})`,
        );
      if (Array.isArray(schema.enum) && types(schema).includes('null') && !schema.enum.includes(null))
        problems.push(`${pointer}: its type admits null but its enum does not list null`);
    }
    for (const name of Object.keys(this.document.components?.schemas ?? {})) {
      try {
        this.ajv.compile({ $ref: `${BASE}#/$defs/${name}` });
      } catch (error) {
        problems.push(`#/components/schemas/${name}: ${(error as Error).message}`);
      }
    }
    // What responses carry: every object described, field by field.
    const reported = new Set<string>();
    for (const { method, template, operation } of this.operationList()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const at = `${method.toUpperCase()} ${template} ${status}`;
        const schema = (response as Schema).content?.['application/json']?.schema;
        if (/^2\d\d$/.test(status) && status !== '204' && !schema) problems.push(`${at}: no response body schema`);
        if (!schema) continue;
        for (const [sub, pointer] of this.reachable(
          schema,
          `#/paths/${escapePointer(template)}/${method}/responses/${status}/content/application~1json/schema`,
        )) {
          const what = isFreeForm(sub)
            ? 'an object whose fields are not described'
            : isUntyped(sub)
              ? 'a value with no type'
              : undefined;
          if (!what || reported.has(pointer)) continue;
          reported.add(pointer);
          problems.push(`${pointer}: ${what} (in ${at})`);
        }
      }
    }
    return problems;
  }

  /** The subschemas of a response schema and of every component it reaches. */
  private *reachable(schema: Schema, pointer: string, visited = new Set<string>()): Generator<[Schema, string]> {
    for (const [sub, at] of subschemas(schema, pointer)) {
      yield [sub, at];
      const name = typeof sub.$ref === 'string' ? COMPONENT_REF.exec(sub.$ref)?.[1] : undefined;
      if (name === undefined || visited.has(name)) continue;
      visited.add(name);
      yield* this.reachable(
        this.document.components?.schemas?.[name] ?? {},
        `#/components/schemas/${escapePointer(name)}`,
        visited,
      );
    }
  }

  /** The document against the OAS 3.1 schema, by @seriousme/openapi-schema-validator's own CLI (an ES module Jest cannot load). */
  async specificationProblems(): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'mm-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(this.document));
      const cli = resolve(
        __dirname,
        '..',
        '..',
        'node_modules',
        '@seriousme',
        'openapi-schema-validator',
        'bin',
        'validate-api-cli.js',
      );
      const { stdout } = await promisify(execFile)(process.execPath, [cli, file]).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
      );
      const result = JSON.parse(stdout) as { valid: boolean; errors?: unknown };
      return result.valid ? [] : [`the document does not match the OAS 3.1 schema: ${JSON.stringify(result.errors)}`];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private operationFor(method: string, path: string): Operation | undefined {
    const bare = path.split('?')[0];
    return this.operations
      .filter((o) => o.method === method && o.pattern.test(bare))
      .sort((a, b) => b.literals - a.literals)[0];
  }

  private validator(key: string, schema: Schema): ValidateFunction | string {
    let validate = this.validators.get(key);
    if (validate === undefined) {
      try {
        validate = this.ajv.compile(forValidator(schema) as Schema);
      } catch (error) {
        validate = `the schema does not compile: ${(error as Error).message}`;
      }
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Checks one exchange: the status and body against the operation's response, an accepted body against its request schema. */
  check(method: string, path: string, sent: unknown, res: Response): string[] {
    const found = this.operationFor(method, path);
    const what = `${method} ${path.split('?')[0]} → ${res.status}`;
    if (!found) return path.startsWith('/v0.13/') ? [`${what}: the document lists no such operation`] : [];
    const route = `${found.method} ${found.template}`;
    if (!this.seen.has(route)) this.seen.set(route, new Set());
    this.seen.get(route)!.add(res.status);
    const problems: string[] = [];
    const responses = found.operation.responses ?? {};
    const status = String(res.status);
    const response: Schema | undefined = responses[status] ?? (res.status >= 400 ? responses.default : undefined);
    if (!response) return [`${what}: ${route} documents no ${status} response (${Object.keys(responses).join(', ')})`];
    const media = response.content?.['application/json'];
    if (res.text === '') {
      if (media?.schema) problems.push(`${what}: the document describes a body, the response has none`);
    } else if (!media?.schema) {
      problems.push(`${what}: the response has a body the document does not describe: ${res.text.slice(0, 200)}`);
    } else {
      if (!/^application\/json\b/.test(res.headers.get('content-type') ?? ''))
        problems.push(`${what}: content-type ${res.headers.get('content-type')}, documented application/json`);
      const validate = this.validator(`${route} ${status} response`, media.schema);
      if (typeof validate === 'string') problems.push(`${what}: ${validate}`);
      else if (!validate(res.body)) problems.push(`${what}: ${describeErrors(validate.errors)}`);
    }
    // A body the server accepted is one the document must admit.
    if (res.status < 300 && sent !== undefined) {
      const requestSchema = found.operation.requestBody?.content?.['application/json']?.schema;
      if (!requestSchema) problems.push(`${what}: the request body was accepted but the document describes none`);
      else {
        const validate = this.validator(`${route} request`, requestSchema);
        if (typeof validate === 'string') problems.push(`${what} (request): ${validate}`);
        else if (!validate(sent))
          problems.push(`${what} (request body the server accepted): ${describeErrors(validate.errors)}`);
      }
    }
    return problems;
  }

  /** The platform's request(), each exchange checked and remembered. */
  async request(platform: TestPlatform, method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const res = await platform.request(method, path, options);
    this.problems.push(...this.check(method, path, options.body, res));
    return res;
  }

  /** The problems found since the last call. */
  take(): string[] {
    const found = this.problems;
    this.problems = [];
    return found;
  }

  /** Routes the document lists that no exchange reached. */
  unexercised(): string[] {
    return this.routes().filter((route) => !this.seen.has(route));
  }

  /** Routes reached, but never with a success status. */
  withoutSuccess(): string[] {
    return this.routes().filter((route) => this.seen.has(route) && ![...this.seen.get(route)!].some((s) => s < 300));
  }
}
