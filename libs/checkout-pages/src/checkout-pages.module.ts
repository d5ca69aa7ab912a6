import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { WebModule } from '#web/web.module.js';
import { CollectionPageController } from './collection-page.controller.js';
import { SimulatedBankController } from './simulated-bank.controller.js';
import { SessionPagesController } from './session-pages.controller.js';
import { CheckoutModule } from '#checkout/checkout.module.js';

/** The customer-facing checkout pages: the collection page, the simulator's bank page, checkout sessions, payment links and storefronts. */
@Module({ imports: [AccountsModule, WebModule, CheckoutModule], controllers: [CollectionPageController, SimulatedBankController, SessionPagesController] })
export class CheckoutPagesModule {}
