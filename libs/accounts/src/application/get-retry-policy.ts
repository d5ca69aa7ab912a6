import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { notFound } from '#shared/errors.js';
import { type AccountDoc, retryPolicyOfDoc } from '../read-models/account.read-model.js';
import type { RetryPolicy } from '../domain/account.decider.js';

export const RETRY_POLICY_URL = '/v1/account/retry_policy';

/** The account's retry policy as the API shows it. */
export interface RetryPolicyObject extends RetryPolicy {
  object: 'retry_policy';
}

export const retryPolicyObject = (policy: RetryPolicy): RetryPolicyObject => ({
  object: 'retry_policy',
  retry_days: [...policy.retry_days],
  final_days: policy.final_days,
});

export class GetRetryPolicyQuery {
  constructor(readonly owner: Owner) {}
}

/** The caller's account's retry policy (the default when it never set one), from the accounts read model. */
@QueryHandler(GetRetryPolicyQuery)
export class GetRetryPolicyHandler implements IQueryHandler<GetRetryPolicyQuery, RetryPolicyObject> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner }: GetRetryPolicyQuery): Promise<RetryPolicyObject> {
    const doc = await this.readModels.store.get<AccountDoc>('accounts', owner.accountId);
    if (!doc) throw notFound('account', owner.accountId, null);
    return retryPolicyObject(retryPolicyOfDoc(doc));
  }
}
