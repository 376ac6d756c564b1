// Start-up check that every POST and PATCH route decided about idempotency:
// either @Idempotent() (the command and its Idempotency-Key record in one
// transaction) or @NoIdempotencyKey(). A route that forgot would run without
// either, so the process refuses to start rather than serve it.
import { Injectable, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IDEMPOTENCY, type IdempotencyMode } from './route-metadata';

const COMMAND_METHODS = new Set([RequestMethod.POST, RequestMethod.PATCH, RequestMethod.PUT]);

@Injectable()
export class IdempotencyCoverage implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const missing: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const type = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!type) continue;
      for (const name of this.scanner.getAllMethodNames(type.prototype)) {
        const handler = (type.prototype as Record<string, (...args: unknown[]) => unknown>)[name];
        if (!COMMAND_METHODS.has(Reflect.getMetadata(METHOD_METADATA, handler))) continue;
        const mode = this.reflector.getAllAndOverride<IdempotencyMode>(IDEMPOTENCY, [handler, type]);
        const interceptors = [
          ...(Reflect.getMetadata(INTERCEPTORS_METADATA, type) ?? []),
          ...(Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []),
        ];
        if (mode !== 'none' && !interceptors.includes(IdempotencyInterceptor)) missing.push(`${type.name}.${name}`);
      }
    }
    if (missing.length > 0) {
      throw new Error(`POST/PATCH routes without @Idempotent() or @NoIdempotencyKey(): ${missing.join(', ')}`);
    }
  }
}
