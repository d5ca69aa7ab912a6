import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';

@Controller()
export class HelloController {
  @Get('health') health() { return { ok: true }; }
}
@Module({ controllers: [HelloController] })
export class AppModule {}

if (process.argv[1]?.endsWith('main.js')) {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter());
  await app.listen(3000);
}
