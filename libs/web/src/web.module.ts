import { Module } from '@nestjs/common';
import { PageAssetsController } from './page-assets.controller.js';
import { CsrfGuard } from './csrf.guard.js';

/**
 * The page infrastructure (libs/web): import it in a module with page controllers. A page controller
 * has `@Public()` on each route, `@UseFilters(PageErrorFilter)`, `@UseGuards(CsrfGuard)`, and renders with a
 * `PageRenderer` over its own views and message catalog. See libs/web/README.md.
 */
@Module({ controllers: [PageAssetsController], providers: [CsrfGuard], exports: [CsrfGuard] })
export class WebModule {}
