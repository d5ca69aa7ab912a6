import { Module } from '@nestjs/common';
import { AccountGateways } from './application/account-gateways.js';
import { AuthenticateApiKey } from './application/authenticate-api-key.js';
import { ConfigureGatewayHandler } from './application/configure-gateway.js';
import { CreateAccountHandler } from './application/create-account.js';
import { EnsureDefaultAccount } from './application/ensure-default-account.js';
import { GetGatewayHandler } from './application/get-gateway.js';
import { ListGatewaysHandler } from './application/list-gateways.js';
import { RemoveGatewayHandler } from './application/remove-gateway.js';
import { AccountGatewaysController } from './http/account-gateways.controller.js';
import { BasicAuthGuard } from './http/basic-auth.guard.js';

/** Merchant accounts: API keys, authentication, and the gateways configured per mode. */
@Module({
  controllers: [AccountGatewaysController],
  providers: [
    AuthenticateApiKey,
    CreateAccountHandler,
    EnsureDefaultAccount,
    BasicAuthGuard,
    ConfigureGatewayHandler,
    RemoveGatewayHandler,
    ListGatewaysHandler,
    GetGatewayHandler,
    AccountGateways,
  ],
  exports: [AuthenticateApiKey, EnsureDefaultAccount, BasicAuthGuard, AccountGateways],
})
export class AccountsModule {}
