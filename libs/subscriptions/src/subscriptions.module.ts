import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { CollectionsModule } from '#collections/collections.module.js';
import { CouponsModule } from '#coupons/coupons.module.js';
import { CancelSubscriptionHandler } from './application/cancel-subscription.js';
import { ChangeSubscriptionItemHandler } from './application/change-subscription-item.js';
import { CreateSubscriptionHandler } from './application/create-subscription.js';
import { DeleteSubscriptionDiscountHandler } from './application/delete-subscription-discount.js';
import { GetSubscriptionHistoryHandler } from './application/get-subscription-history.js';
import { GetSubscriptionItemHandler } from './application/get-subscription-item.js';
import { GetSubscriptionHandler } from './application/get-subscription.js';
import { ListSubscriptionsHandler } from './application/list-subscriptions.js';
import { SearchSubscriptionsHandler } from './application/search-subscriptions.js';
import { PauseSubscriptionHandler } from './application/pause-subscription.js';
import { RecordCollectionPaid } from './application/record-collection-paid.js';
import { ResumeSubscriptionHandler } from './application/resume-subscription.js';
import { SetSubscriptionShippingItemHandler } from './application/set-subscription-shipping-item.js';
import { SetSubscriptionShippingHandler } from './application/set-subscription-shipping.js';
import { SubscriptionBilling } from './application/subscription-billing.js';
import { SubscriptionInputs } from './application/subscription-inputs.js';
import { UpdateSubscriptionHandler } from './application/update-subscription.js';
import { SubscriptionItemsController } from './http/subscription-items.controller.js';
import { SubscriptionsController } from './http/subscriptions.controller.js';

/** Subscriptions: the agreement; creates and attempts its collections, hears when they are paid. */
@Module({
  imports: [AccountsModule, CollectionsModule, CouponsModule],
  controllers: [SubscriptionsController, SubscriptionItemsController],
  providers: [
    SubscriptionInputs,
    SubscriptionBilling,
    RecordCollectionPaid,
    CreateSubscriptionHandler,
    GetSubscriptionHandler,
    ListSubscriptionsHandler,
    SearchSubscriptionsHandler,
    GetSubscriptionHistoryHandler,
    UpdateSubscriptionHandler,
    CancelSubscriptionHandler,
    PauseSubscriptionHandler,
    ResumeSubscriptionHandler,
    DeleteSubscriptionDiscountHandler,
    SetSubscriptionShippingHandler,
    SetSubscriptionShippingItemHandler,
    ChangeSubscriptionItemHandler,
    GetSubscriptionItemHandler,
  ],
  exports: [SubscriptionBilling, CollectionsModule],
})
export class SubscriptionsModule {}
