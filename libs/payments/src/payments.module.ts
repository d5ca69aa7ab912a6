import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { DeletePaymentMethodHandler } from './application/delete-payment-method.js';
import { GetPaymentMethodHandler } from './application/get-payment-method.js';
import { MigratePaymentMethodHandler } from './application/migrate-payment-method.js';
import { ResolvePaymentSource } from './application/resolve-payment-source.js';
import { SavePaymentMethod } from './application/save-payment-method.js';
import { UpdatePaymentMethodHandler } from './application/update-payment-method.js';
import { PAYMENT_GATEWAY } from './gateways/payment-gateway.port.js';
import { SimulatedGateway } from './gateways/simulated-gateway.js';
import { PaymentMethodsController } from './http/payment-methods.controller.js';

/** Payments: the gateway port (simulator connector), stored payment methods, payment sources. */
@Module({
  imports: [AccountsModule],
  controllers: [PaymentMethodsController],
  providers: [
    { provide: PAYMENT_GATEWAY, inject: [CONFIG], useFactory: (config: Config) => new SimulatedGateway(config.checkoutUrl) },
    ResolvePaymentSource,
    SavePaymentMethod,
    GetPaymentMethodHandler,
    UpdatePaymentMethodHandler,
    DeletePaymentMethodHandler,
    MigratePaymentMethodHandler,
  ],
  exports: [PAYMENT_GATEWAY, ResolvePaymentSource, SavePaymentMethod],
})
export class PaymentsModule {}
