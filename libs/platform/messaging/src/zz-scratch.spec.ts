import { Server, ServerKafka } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
it('loads', () => { expect(typeof Server).toBe('function'); expect(typeof ServerKafka).toBe('function'); expect(typeof NestFactory.createMicroservice).toBe('function'); });
