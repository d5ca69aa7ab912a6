import { Module } from '@nestjs/common';
import { CreateCustomerHandler } from './application/create-customer.js';
import { GetCustomerHandler } from './application/get-customer.js';
import { ListCustomerPaymentMethodsHandler } from './application/list-customer-payment-methods.js';
import { ListCustomersHandler } from './application/list-customers.js';
import { SearchCustomersHandler } from './application/search-customers.js';
import { UpdateCustomerHandler } from './application/update-customer.js';
import { EraseCustomerHandler } from './application/erase-customer.js';
import { CustomersController } from './http/customers.controller.js';
import { FiscalBuyerPurge } from './personal-data/fiscal-purge.js';
import { CustomerEmailClaims } from './application/customer-email-claims.js';
import { SchedulingModule } from '#scheduling/scheduling.module.js';

/** Customers: unique per email within an account and mode; billing address; payment methods (list). */
@Module({
  imports: [SchedulingModule],
  controllers: [CustomersController],
  providers: [CreateCustomerHandler, UpdateCustomerHandler, GetCustomerHandler, ListCustomersHandler, ListCustomerPaymentMethodsHandler, SearchCustomersHandler, EraseCustomerHandler, FiscalBuyerPurge, CustomerEmailClaims],
  exports: [CustomerEmailClaims],
})
export class CustomersModule {}
