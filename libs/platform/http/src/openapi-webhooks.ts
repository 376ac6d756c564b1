// The OpenAPI 3.1 `webhooks` of the document (spec: Events / Envelope, Catalog):
// one entry per event of this version, generated from the catalogue in
// libs/contracts, each describing the envelope as posted and its `data` by the
// component schema of the resource's GET response, with an example delivery. A
// document describes the events of the resources it describes: a service's own
// document those of its resources, the platform's and the gateway's all of them.
import type { OpenAPIObject } from '@nestjs/swagger';
import {
  isOffered,
  PARTNER_EVENT_DEFINITIONS,
  PARTNER_EVENT_RESOURCES,
  partnerEventExample,
  SEQUENCE_MEANING,
  STATUS_CHANGED_EVENTS,
  type PartnerEventDefinition,
} from '@mm/contracts';
import { idPattern } from '@mm/platform/ids';

type Schema = Record<string, unknown>;

const TIMESTAMP = { type: 'string', format: 'date-time' };

/** The envelope of one event: `event`, or for the five statusChanged events `eventType`, `eventId` and `previousStatus`. */
export function webhookEnvelopeSchema(definition: PartnerEventDefinition): Schema {
  const resource = PARTNER_EVENT_RESOURCES[definition.resource];
  const statusChanged = STATUS_CHANGED_EVENTS.includes(definition.name);
  const sequenced = definition.name !== 'webhook.test';
  const naming: Record<string, Schema> = statusChanged
    ? {
        eventType: {
          type: 'string',
          const: definition.name,
          description: 'the event type (statusChanged events name it here, not in `event`: read `event ?? eventType`)',
        },
        eventId: {
          type: 'string',
          pattern: idPattern('event'),
          description: 'evt_: the event, shared by its deliveries to every endpoint; deduplicate on `id`, not on this',
        },
        previousStatus: {
          type: ['string', 'null'],
          description: 'the status before the change; null when the resource was just created',
        },
      }
    : { event: { type: 'string', const: definition.name, description: 'the event type' } };
  return {
    type: 'object',
    description: `The envelope of ${definition.name}, posted as JSON with the headers Webhook-Id and Webhook-Signature.`,
    properties: {
      id: {
        type: 'string',
        pattern: idPattern('webhookDelivery'),
        description: 'whd_: the delivery, one per event and endpoint, the same on every retry: the deduplication key',
      },
      ...naming,
      ...(sequenced ? { sequence: { type: 'integer', minimum: 1, description: SEQUENCE_MEANING } } : {}),
      createdAt: { ...TIMESTAMP, description: 'when the delivery was created' },
      occurredAt: { ...TIMESTAMP, description: 'when the change happened (project time)' },
      ...(definition.changedFields
        ? {
            changedFields: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', enum: [...definition.changedFields] },
              description: 'the fields of `data` this change changed',
            },
          }
        : {}),
      data: {
        $ref: `#/components/schemas/${resource.schema}`,
        description: `the ${resource.object} at the time of the event, as ${resource.read} answers it; branch on its status`,
      },
    },
    required: [
      'id',
      ...Object.keys(naming),
      ...(sequenced ? ['sequence'] : []),
      'createdAt',
      'occurredAt',
      ...(definition.changedFields ? ['changedFields'] : []),
      'data',
    ],
  };
}

/** Adds `webhooks` for every event of this version whose resource schema the document has; returns the document. */
export function describeWebhooks(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  const webhooks: Record<string, unknown> = {};
  for (const definition of PARTNER_EVENT_DEFINITIONS) {
    const resource = PARTNER_EVENT_RESOURCES[definition.resource];
    if (!isOffered(definition) || !schemas[resource.schema]) continue;
    webhooks[definition.name] = {
      post: {
        summary: definition.name,
        description: `Fires when ${definition.when}.${definition.namedOnly ? '' : ' Covered by the subscription `*`.'} \`data\`: the ${resource.object}, as ${resource.read} answers it.`,
        tags: ['Webhook events'],
        parameters: [
          {
            name: 'Webhook-Id',
            in: 'header',
            required: true,
            description: 'the delivery id (whd_), as in the body',
            schema: { type: 'string' },
          },
          {
            name: 'Webhook-Event-Id',
            in: 'header',
            required: true,
            description: 'the event id (evt_), the same in every delivery of the event and in GET /events',
            schema: { type: 'string', pattern: idPattern('event') },
          },
          {
            name: 'Webhook-Signature',
            in: 'header',
            required: true,
            description:
              't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the UTF-8 bytes of the endpoint\'s signing key>; made afresh on every attempt',
            schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: webhookEnvelopeSchema(definition),
              example: partnerEventExample(definition.name),
            },
          },
        },
        responses: {
          '200': {
            description:
              "Any 2xx within the endpoint's timeoutMs acknowledges the delivery. Anything else (another status, a timeout, a network error) is retried on the schedule",
          },
        },
      },
    };
  }
  const withWebhooks = document as OpenAPIObject & { webhooks?: Record<string, unknown> };
  if (Object.keys(webhooks).length > 0) withWebhooks.webhooks = webhooks;
  else delete withWebhooks.webhooks;
  return document;
}
