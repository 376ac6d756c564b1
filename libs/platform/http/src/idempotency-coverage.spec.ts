import 'reflect-metadata';
import { Controller, Get, Module, Patch, Post, type Type } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IdempotencyCoverage } from './idempotency-coverage';
import { Idempotent, IdempotencyInterceptor } from './idempotency.interceptor';
import { NoIdempotencyKey } from './route-metadata';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';

/** Builds an application around one controller and reports whether it starts. */
async function starts(controller: Type): Promise<true | string> {
  @Module({
    imports: [DiscoveryModule],
    controllers: [controller],
    providers: [
      IdempotencyCoverage,
      { provide: UnitOfWork, useValue: {} },
      { provide: PlatformConfig, useValue: {} },
      IdempotencyInterceptor,
    ],
  })
  class TestModule {}
  const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false, abortOnError: false });
  try {
    await app.init();
    return true;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await app.close();
  }
}

describe('IdempotencyCoverage', () => {
  it('starts when every POST and PATCH route decided', async () => {
    @Controller('ok')
    class Decided {
      @Get() read() {}
      @Post() @Idempotent() create() {}
      @Patch(':id') @Idempotent() update() {}
      @Post('exchange') @NoIdempotencyKey() exchange() {}
    }
    expect(await starts(Decided)).toBe(true);
  });

  it('refuses to start when a POST or PATCH route has neither @Idempotent() nor @NoIdempotencyKey()', async () => {
    @Controller('bad')
    class Forgot {
      @Post() create() {}
      @Patch(':id') update() {}
    }
    expect(await starts(Forgot)).toMatch(
      /without @Idempotent\(\) or @NoIdempotencyKey\(\): Forgot\.create, Forgot\.update/,
    );
  });
});
