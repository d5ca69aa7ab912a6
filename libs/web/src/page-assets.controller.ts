import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { FAVICON_SVG, PAGES_CSS } from './page-renderer.js';

/** The pages' stylesheet (one file, no build step), served under each page prefix, and their icon. */
@ApiExcludeController()
@Controller()
export class PageAssetsController {
  @Public()
  @Get(['checkout/assets/pages.css', 'portal/assets/pages.css', 'dashboard/assets/pages.css'])
  css(@Res() reply: FastifyReply) {
    return reply.header('Cache-Control', 'public, max-age=3600').type('text/css; charset=utf-8').send(PAGES_CSS);
  }

  /** Browsers ask every origin for `/favicon.ico`: answered with the pages' icon rather than a 404 in every visitor's console. */
  @Public()
  @Get(['favicon.ico', 'favicon.svg'])
  favicon(@Res() reply: FastifyReply) {
    return reply.header('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG);
  }
}
