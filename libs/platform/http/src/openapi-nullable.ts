// Nullable fields in the OpenAPI 3.1 document (ADR 0024). @nestjs/swagger 11
// writes `nullable: true` as OpenAPI 3.0 had it, whatever the document's
// version; 3.1 is JSON Schema 2020-12, where `nullable` means nothing and null
// is a type. So the DTOs keep saying `nullable: true` (with a `type`), and the
// document is rewritten once, here, into the 3.1 forms:
//   {type: T, nullable}                  -> {type: [T, "null"]} (an enum lists null too)
//   {allOf: [{$ref}], nullable} or $ref  -> {anyOf: [{$ref}, {type: "null"}]}
// A nullable field whose type the decorator did not give (TypeScript reports
// `string | null` as Object) stops the document from being built, naming it:
// it would otherwise reach partners as an untyped `object`.
import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, any>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The keys under which a schema holds subschemas, by shape. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_VALUES = [
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
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

function rewrite(schema: unknown, pointer: string): void {
  if (!isObject(schema)) return;
  for (const key of SCHEMA_MAPS)
    if (isObject(schema[key]))
      for (const [name, sub] of Object.entries(schema[key])) rewrite(sub, `${pointer}/${key}/${name}`);
  for (const key of SCHEMA_VALUES) rewrite(schema[key], `${pointer}/${key}`);
  for (const key of SCHEMA_LISTS)
    if (Array.isArray(schema[key]))
      schema[key].forEach((sub: unknown, i: number) => rewrite(sub, `${pointer}/${key}/${i}`));
  if (!('nullable' in schema)) return;
  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return;
  const NULL = { type: 'null' };
  const combined = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(combined)) {
    if (!combined.some((s: Schema) => s.type === 'null')) combined.push(NULL);
    return;
  }
  if (typeof schema.$ref === 'string' || Array.isArray(schema.allOf)) {
    // A reference (or @nestjs/swagger's {type: object, allOf: [$ref]} for a described one): the
    // referenced schema or null; the description and the like stay beside it.
    const target =
      typeof schema.$ref === 'string'
        ? { $ref: schema.$ref }
        : schema.allOf.length === 1
          ? schema.allOf[0]
          : { allOf: schema.allOf };
    delete schema.$ref;
    delete schema.allOf;
    delete schema.type;
    schema.anyOf = [target, NULL];
    return;
  }
  const type = schema.type;
  const typeless =
    type === undefined ||
    (type === 'object' && schema.properties === undefined && schema.additionalProperties === undefined);
  if (typeless)
    throw new Error(
      `OpenAPI: ${pointer} is nullable but has no type: give its ApiProperty a type (String, Number, a DTO class)`,
    );
  schema.type = Array.isArray(type) ? [...new Set([...type, 'null'])] : [type, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}

/** Rewrites every `nullable` of the document's schemas into OpenAPI 3.1's forms, in place. */
export function openApi31Nullables(document: OpenAPIObject): OpenAPIObject {
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}))
    rewrite(schema, `#/components/schemas/${name}`);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, Schema>)) {
      if (!isObject(operation)) continue;
      const at = `#/paths/${path}/${method}`;
      for (const parameter of operation.parameters ?? [])
        rewrite(parameter.schema, `${at}/parameters/${parameter.name}`);
      for (const [type, media] of Object.entries<Schema>(operation.requestBody?.content ?? {}))
        rewrite(media.schema, `${at}/requestBody/${type}`);
      for (const [status, response] of Object.entries<Schema>(operation.responses ?? {})) {
        for (const [type, media] of Object.entries<Schema>(response.content ?? {}))
          rewrite(media.schema, `${at}/responses/${status}/${type}`);
      }
    }
  }
  return document;
}
