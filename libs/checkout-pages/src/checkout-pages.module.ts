import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/src/accounts.module.js';
import { WebModule } from '../../web/src/web.module.js';
import { CollectionPageController } from './collection-page.controller.js';
import { SimulatedBankController } from './simulated-bank.controller.js';

/** The customer-facing checkout pages: the collection page and the simulator's bank page. */
@Module({ imports: [AccountsModule, WebModule], controllers: [CollectionPageController, SimulatedBankController] })
export class CheckoutPagesModule {}
