import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { openApi31Nullables } from './openapi-nullable';

class Failure {
  @ApiProperty() code!: string;
}

class Example {
  @ApiProperty({ nullable: true, type: String, description: 'kept' }) label!: string | null;
  @ApiProperty({ nullable: true, type: String, enum: ['settled'] }) subStatus!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) completedAt!: string | null;
  @ApiProperty({ nullable: true, type: Number }) distanceKm!: number | null;
  @ApiProperty({ type: Failure, nullable: true, description: 'why' }) failure!: Failure | null;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', nullable: true } }) metadata?: Record<
    string,
    string | null
  >;
  @ApiProperty() plain!: string;
}

@Controller('examples')
class ExampleController {
  @Get()
  @ApiOkResponse({ type: Example })
  get(): Example | undefined {
    return undefined;
  }
}

@Module({ controllers: [ExampleController] })
class ExampleModule {}

async function document(module: unknown): Promise<OpenAPIObject> {
  const app = await NestFactory.create(module as never, new FastifyAdapter(), { logger: false });
  try {
    return SwaggerModule.createDocument(app, new DocumentBuilder().setOpenAPIVersion('3.1.0').build());
  } finally {
    await app.close();
  }
}

describe('openApi31Nullables', () => {
  it('writes null as a type (3.1), never the 3.0 nullable keyword', async () => {
    const schema = openApi31Nullables(await document(ExampleModule)).components!.schemas!.Example as Record<
      string,
      any
    >;
    expect(schema.properties).toEqual({
      label: { type: ['string', 'null'], description: 'kept' },
      subStatus: { type: ['string', 'null'], enum: ['settled', null] },
      completedAt: { type: ['string', 'null'], format: 'date-time' },
      distanceKm: { type: ['number', 'null'] },
      failure: { description: 'why', anyOf: [{ $ref: '#/components/schemas/Failure' }, { type: 'null' }] },
      metadata: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      plain: { type: 'string' },
    });
    expect(JSON.stringify(schema)).not.toContain('nullable');
  });

  it('refuses a nullable field without a type, which would reach partners as an untyped object', () => {
    const untyped = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: { schemas: { Limits: { type: 'object', properties: { cap: { type: 'object', nullable: true } } } } },
    };
    expect(() => openApi31Nullables(untyped as OpenAPIObject)).toThrow(
      '#/components/schemas/Limits/properties/cap is nullable but has no type',
    );
  });
});
