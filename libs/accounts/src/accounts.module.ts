import { Module } from '@nestjs/common';
import { AccountGateways } from './application/account-gateways.js';
import { AccountRetryPolicy } from './application/account-retry-policy.js';
import { AuthenticateApiKey } from './application/authenticate-api-key.js';
import { ConfigureGatewayHandler } from './application/configure-gateway.js';
import { CreateAccountHandler } from './application/create-account.js';
import { CreateApiKeyHandler } from './application/create-api-key.js';
import { ListApiKeysHandler } from './application/list-api-keys.js';
import { RevokeApiKeyHandler } from './application/revoke-api-key.js';
import { RollApiKeyHandler } from './application/roll-api-key.js';
import { EnsureDefaultAccount } from './application/ensure-default-account.js';
import { GetGatewayHandler } from './application/get-gateway.js';
import { GetRetryPolicyHandler } from './application/get-retry-policy.js';
import { ListGatewaysHandler } from './application/list-gateways.js';
import { RemoveGatewayHandler } from './application/remove-gateway.js';
import { SetRetryPolicyHandler } from './application/set-retry-policy.js';
import { RenameAccountHandler } from './application/rename-account.js';
import { AccountGatewaysController } from './http/account-gateways.controller.js';
import { AccountRetryPolicyController } from './http/account-retry-policy.controller.js';
import { BasicAuthGuard } from './http/basic-auth.guard.js';

/** Merchant accounts: API keys (created, rolled, revoked; restricted keys' permissions), authentication, the gateways configured per mode, and the dunning policy. */
@Module({
  controllers: [AccountGatewaysController, AccountRetryPolicyController],
  providers: [
    AuthenticateApiKey,
    CreateAccountHandler,
    CreateApiKeyHandler,
    RollApiKeyHandler,
    RevokeApiKeyHandler,
    ListApiKeysHandler,
    EnsureDefaultAccount,
    BasicAuthGuard,
    ConfigureGatewayHandler,
    RemoveGatewayHandler,
    ListGatewaysHandler,
    GetGatewayHandler,
    AccountGateways,
    SetRetryPolicyHandler,
    RenameAccountHandler,
    GetRetryPolicyHandler,
    AccountRetryPolicy,
  ],
  exports: [AuthenticateApiKey, EnsureDefaultAccount, BasicAuthGuard, AccountGateways, AccountRetryPolicy],
})
export class AccountsModule {}
