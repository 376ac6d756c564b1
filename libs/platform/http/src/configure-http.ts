// The HTTP conventions every service process applies (ARCHITECTURE:
// Cross-cutting HTTP conventions).
import { Logger, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ApiError, ERROR_CATALOGUE } from '@mm/contracts';
import { ErrorBodyFilter, sendError } from './error-body.filter';
import { RequestValidationPipe } from './validation.pipe';
import { guardRequestInput } from './request-input';
import { applyNoStore } from './no-store';
import { API_BASE_PATH, OUTSIDE_BASE_PATH } from './base-path';
import { openApi31Nullables } from './openapi-nullable';
import { describeWebhooks } from './openapi-webhooks';
import { trackRouteMethods } from './method-not-allowed';

export { API_BASE_PATH };
export const CONTRACT_LABEL = 'v26.09.30-0002';

/**
 * Fastify adapter whose error handler is ours: Nest would rewrap body-parser
 * errors as generic HTTP exceptions and lose which one it was (malformed JSON,
 * too large, wrong media type).
 */
export class ApiFastifyAdapter extends FastifyAdapter {
  private readonly errorLogger = new Logger('http');

  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return super.setErrorHandler((error: unknown, _request: unknown, reply: Parameters<typeof sendError>[0]) =>
      sendError(reply, error, this.errorLogger),
    );
  }
}

/** Fastify's own URL errors (a malformed percent-encoding) in the API's error body. */
export function frameworkErrors(error: Error, _request: unknown, reply: Parameters<typeof sendError>[0]): void {
  sendError(reply, new ApiError('InvalidRequest', `malformed request: ${error.message}`), new Logger('http'));
}

export function configureHttpApp(app: NestFastifyApplication): void {
  // Before any route: a path asked with a method it does not take is a 405 with Allow.
  trackRouteMethods(app.getHttpAdapter().getInstance());
  app.setGlobalPrefix(API_BASE_PATH, { exclude: OUTSIDE_BASE_PATH });
  // Browsers send the publishable key in an Api-Key header, which needs a CORS preflight. Every
  // other route takes a secret-key bearer token and must never be called from a browser: no CORS,
  // except where a route's own config says (PublishableKeyRoute). Static options, so that nothing is
  // worked out per request (a per-request delegator cost a read about 3% of its CPU).
  app.enableCors({ origin: false });
  app.useGlobalFilters(new ErrorBodyFilter());
  app.useGlobalPipes(new RequestValidationPipe());
  guardRequestInput(app);
  applyNoStore(app.getHttpAdapter().getInstance());
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Money-movement API')
    .setDescription(
      'Move money between USDC and fiat. Every path is under /v0.13. Exchange an API key pair at POST /auth/token ' +
        'for a bearer token; send Idempotency-Key on every POST and PATCH. Bodies are JSON objects; an empty body is no body, ' +
        'and credentials are checked before the body. Errors use the body {error, code, msg, cause, status?, requestId}; ' +
        'the catalogue of codes is under x-error-catalogue. Every response carries X-Request-Id: the X-Request-Id the ' +
        'request sent when it is 1 to 128 letters, digits or - . _ ~ : + = @ /, else a new id. ' +
        'The events posted to webhook endpoints are under webhooks, one per event.',
    )
    .setVersion(CONTRACT_LABEL)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'Api-Key' }, 'publishableKey')
    .build();
  const document = openApi31Nullables(SwaggerModule.createDocument(app, config));
  describeConventions(document);
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      // A value any JSON may be, described to the end (an operator audit entry's request and answer: JSON_VALUE).
      JsonValue: {
        description: 'any JSON value',
        oneOf: [
          { type: 'string' },
          { type: 'number' },
          { type: 'boolean' },
          { type: 'null' },
          { type: 'array', items: { $ref: '#/components/schemas/JsonValue' } },
          { type: 'object', additionalProperties: { $ref: '#/components/schemas/JsonValue' } },
        ],
      },
      Error: {
        type: 'object',
        required: ['error', 'code', 'msg', 'cause'],
        properties: {
          error: { type: 'string' },
          code: { type: 'integer' },
          msg: { type: 'string' },
          cause: { type: 'string' },
          status: { type: 'integer' },
          error_description: {
            type: 'string',
            description:
              "the reason in words, on bearer-token failures (RFC 6750) and on the token endpoint's refusals",
          },
          requestId: {
            type: 'string',
            description:
              "the request's id, as in the X-Request-Id response header: quote it when asking about a request",
          },
        },
      },
    },
  };
  (document as OpenAPIObject & { 'x-error-catalogue': unknown })['x-error-catalogue'] = Object.entries(
    ERROR_CATALOGUE,
  ).map(([error, d]) => ({ error, code: d.code, status: d.status, msg: d.msg, when: d.when }));
  return describeWebhooks(document);
}

/**
 * What every operation shares, stated once: the error body as the default
 * response, and the Idempotency-Key header on POST and PATCH (required on
 * partner and operator routes alike, spec rule 6; absent on the token exchange).
 */
function describeConventions(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as Array<
      [string, { responses?: Record<string, unknown>; parameters?: unknown[] }]
    >) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      operation.responses = {
        ...operation.responses,
        default: {
          description: 'Error: see x-error-catalogue',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      };
      if ((method === 'post' || method === 'patch') && !path.endsWith('/auth/token')) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: true,
            description:
              'Same key and body replays the first response byte for byte: its status, body and Content-Type, with Idempotent-Replayed: true. Another body is 422; in flight is 409. Missing: 400.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ];
      }
    }
  }
}

/** /openapi.json and the rendered reference at /docs. */
export function serveOpenApi(
  app: NestFastifyApplication,
  patch?: (document: OpenAPIObject) => OpenAPIObject | Promise<OpenAPIObject>,
): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Money-movement API reference',
    ...(patch
      ? { patchDocumentOnRequest: (_request: unknown, _reply: unknown, served: OpenAPIObject) => patch(served) }
      : {}),
  });
}
