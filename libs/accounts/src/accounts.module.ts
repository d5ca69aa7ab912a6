import { Module } from '@nestjs/common';
import { AuthenticateApiKey } from './application/authenticate-api-key.js';
import { CreateAccountHandler } from './application/create-account.js';
import { EnsureDefaultAccount } from './application/ensure-default-account.js';
import { BasicAuthGuard } from './http/basic-auth.guard.js';

@Module({
  providers: [AuthenticateApiKey, CreateAccountHandler, EnsureDefaultAccount, BasicAuthGuard],
  exports: [AuthenticateApiKey, EnsureDefaultAccount, BasicAuthGuard],
})
export class AccountsModule {}
