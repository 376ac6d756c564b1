// Every operator action goes into the operators' audit log (docs/operators.md, Audit log), kept by the gateway,
// and so does a partner's action on a route marked PartnerAudited (a key made, rolled or revoked with a key):
// an entry for the request before the route acts, and one for its answer after it answered. An action whose
// request entry cannot be written is refused (503) and does nothing: no operator acts unrecorded. Reads (GET)
// are not actions and are not recorded. Outside every route's own interceptors (idempotency among them), so the
// answer is recorded once the action committed.
import {
  Injectable,
  Logger,
  Optional,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { catchError, from, mergeMap, type Observable } from 'rxjs';
import { ApiError, GatewayPort, type AuditEntryInput } from '@mm/contracts';
import type { ApiRequest } from './request-context';
import { PARTNER_AUDITED, ROUTE_ACCESS, type RouteAccess } from './route-metadata';

/**
 * Fields whose values never go into a log (the audit log, the process's log lines): secrets a route takes or
 * shows once, and account, card and tax numbers.
 */
export const SENSITIVE_FIELDS = [
  'apiSecret',
  'accessToken',
  'signingKey',
  'secret',
  'password',
  'privateKey',
  'mnemonic',
  'accountNumber',
  'iban',
  'cardNumber',
  'cvc',
  'taxId',
] as const;
const SECRET_FIELDS = new Set<string>(SENSITIVE_FIELDS);

/** The value with every sensitive field's value replaced, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value ?? null;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, SECRET_FIELDS.has(key) ? '[redacted]' : withoutSecrets(field)]),
  );
}

/** What a route's handler may put on its request for the log: the target as it was before the action. */
export interface AuditedRequest extends ApiRequest {
  auditBefore?: unknown;
}

@Injectable()
export class OperatorAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('audit');

  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly gateway?: GatewayPort,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuditedRequest>();
    // Reads, and partners' requests but on the few routes marked, leave at once: nothing is looked up on their path.
    if (request.method === 'GET' || request.method === 'HEAD') return next.handle();
    const caller = request.caller;
    const targets = [context.getHandler(), context.getClass()];
    const operator = caller?.operator;
    const audited = operator
      ? this.reflector.getAllAndOverride<RouteAccess>(ROUTE_ACCESS, targets) === 'admin'
      : caller?.kind === 'partner' && this.reflector.getAllAndOverride<boolean>(PARTNER_AUDITED, targets);
    if (!caller || !audited) return next.handle();
    const actor = operator
      ? { subject: operator.subject, name: operator.name, role: operator.role, via: operator.via }
      : { subject: caller.apiKey ?? '', name: `a key of ${caller.projectId}`, role: 'partner', via: 'api-key' };
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    const params = (request.params ?? {}) as Record<string, string>;
    const body = withoutSecrets(request.body ?? null);
    const common = {
      actor,
      action: `${request.method} ${path}`,
      // The resource after /admin/ (projects, transactions, webhooks, api-keys, ...), or a partner route's first
      // segment, and the id the path names.
      targetType: /^\/[^/]+\/(?:admin\/)?([^/]+)/.exec(path)?.[1] ?? 'admin',
      reason:
        typeof (request.body as { reason?: unknown })?.reason === 'string'
          ? (request.body as { reason: string }).reason
          : null,
      requestId: String(request.id),
      sourceAddress: request.ip ?? null,
      request: body,
    };
    const targetId = Object.values(params)[0] ?? null;
    // The status the route set on the reply before it ran (its @HttpCode), or the one it chose as it answered (202:
    // an action that waits for a second operator).
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return from(this.requestEntry({ ...common, targetId })).pipe(
      mergeMap((requestEntryId) => {
        const answered = (code: number, after: unknown) =>
          this.append({
            ...common,
            phase: 'response',
            requestEntryId,
            // A route that makes its target names it only in its answer.
            targetId: targetId ?? idOf(after),
            status: code,
            before: withoutSecrets(request.auditBefore ?? null),
            after: withoutSecrets(after),
          }).catch((error: Error) =>
            // The action is done: its request entry stands, with no answer recorded beside it.
            this.logger.error(
              `the answer to ${request.method} ${path} (${requestEntryId}) was not recorded: ${error.message}`,
            ),
          );
        return next.handle().pipe(
          mergeMap(async (result: unknown) => {
            // An idempotent route answers the JSON text it stored (the same bytes on a replay).
            await answered(reply.statusCode, typeof result === 'string' ? parsedOrText(result) : result);
            return result;
          }),
          catchError(async (error: unknown) => {
            const refusal = error instanceof ApiError ? error : undefined;
            await answered(refusal?.definition.status ?? 500, refusal ? refusal.toBody() : { error: 'InternalError' });
            throw error;
          }),
        );
      }),
    );
  }

  private async requestEntry(entry: Omit<AuditEntryInput, 'phase' | 'status' | 'before' | 'after'>): Promise<string> {
    try {
      return (await this.append({ ...entry, phase: 'request', status: null, before: null, after: null })).id;
    } catch (error) {
      this.logger.error(`the audit log refused ${entry.action}: ${(error as Error).message}`);
      throw new ApiError(
        'ServiceUnavailable',
        "the operators' audit log cannot be written, and no operator action runs unrecorded; retry shortly",
        { 'retry-after': '1' },
      );
    }
  }

  private async append(entry: AuditEntryInput): Promise<{ id: string }> {
    if (!this.gateway) throw new Error('no audit log in this process');
    return this.gateway.appendAudit(entry);
  }
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function idOf(value: unknown): string | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}
