import { Module } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { PaymentsModule } from '#payments/payments.module.js';
import { CollectionLines } from './application/collection-lines.js';
import { CollectionPayments } from './application/collection-payments.js';
import { CreateCollectionHandler } from './application/create-collection.js';
import { DeleteCollectionDiscountHandler } from './application/delete-collection-discount.js';
import { GetChargeHandler } from './application/get-charge.js';
import { GetCollectionHandler } from './application/get-collection.js';
import { GetTransactionHandler } from './application/get-transaction.js';
import { ListChargesHandler } from './application/list-charges.js';
import { ListCollectionsHandler } from './application/list-collections.js';
import { SearchCollectionsHandler } from './application/search-collections.js';
import { ListTransactionsHandler } from './application/list-transactions.js';
import { MarkCollectionUncollectibleHandler } from './application/mark-collection-uncollectible.js';
import { PayCollectionHandler } from './application/pay-collection.js';
import { PaymentFollowUps } from './application/payment-follow-ups.js';
import { FiscalInvoices } from './application/fiscal-invoices.js';
import { RefundCollectionHandler } from './application/refund-collection.js';
import { SendCollectionHandler } from './application/send-collection.js';
import { SettleProcessingPaymentHandler } from './application/settle-processing-payment.js';
import { UpdateCollectionDiscountsHandler } from './application/update-collection-discounts.js';
import { UpdateCollectionItemsHandler } from './application/update-collection-items.js';
import { VoidCollectionHandler } from './application/void-collection.js';
import { DefinePartialPaymentHandler } from './application/define-partial-payment.js';
import { RegisterInvoicesPaymentHandler } from './application/register-invoices-payment.js';
import { UpdateCollectionTotalHandler } from './application/update-collection-total.js';
import { EXCHANGE_RATES } from './exchange-rates/exchange-rates.port.js';
import { TableExchangeRates } from './exchange-rates/table-exchange-rates.js';
import { ChargesController } from './http/charges.controller.js';
import { CollectionTestHelpersController } from './http/collection-test-helpers.controller.js';
import { CollectionsController } from './http/collections.controller.js';
import { CustomerPaymentsController } from './http/customer-payments.controller.js';

/** Collections: what is paid. Transactions and charges, totals and conversion, the pay/void/refund life cycle. */
@Module({
  imports: [PaymentsModule],
  controllers: [CollectionsController, ChargesController, CollectionTestHelpersController, CustomerPaymentsController],
  providers: [
    { provide: EXCHANGE_RATES, inject: [CONFIG], useFactory: (config: Config) => new TableExchangeRates(config.exchangeRates ?? undefined) },
    CollectionLines,
    CollectionPayments,
    PaymentFollowUps,
    FiscalInvoices,
    CreateCollectionHandler,
    GetCollectionHandler,
    ListCollectionsHandler,
    SearchCollectionsHandler,
    PayCollectionHandler,
    VoidCollectionHandler,
    RefundCollectionHandler,
    MarkCollectionUncollectibleHandler,
    SendCollectionHandler,
    UpdateCollectionItemsHandler,
    UpdateCollectionDiscountsHandler,
    DeleteCollectionDiscountHandler,
    DefinePartialPaymentHandler,
    UpdateCollectionTotalHandler,
    RegisterInvoicesPaymentHandler,
    SettleProcessingPaymentHandler,
    GetChargeHandler,
    ListChargesHandler,
    GetTransactionHandler,
    ListTransactionsHandler,
  ],
  exports: [CollectionLines, CollectionPayments, PaymentFollowUps, FiscalInvoices, PaymentsModule],
})
export class CollectionsModule {}
