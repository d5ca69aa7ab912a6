/**
 * The collection aggregate, assembled: `collectionDecider` dispatches each command to its decide
 * function (collection/decide/<command>.ts, specs beside them) and folds events with
 * collection/collection.evolve.ts. The public names of the aggregate are re-exported from here.
 */
import { ownedBy } from '#shared/owner.js';
import type { Decider } from '#shared/decider.js';
import { notFound } from '#shared/errors.js';
import type { CollectionCommand } from './collection/collection.commands.js';
import type { CollectionEvent } from './collection/collection.events.js';
import type { CollectionState } from './collection/collection.state.js';
import { evolveCollection, initialCollectionState } from './collection/collection.evolve.js';
import { decideAbandonTransaction } from './collection/decide/abandon-transaction.js';
import { decideAttachInvoice } from './collection/decide/attach-invoice.js';
import { decideAdvanceDunning } from './collection/decide/advance-dunning.js';
import { decideApplyRegisteredPayment } from './collection/decide/apply-registered-payment.js';
import { decideCreditCollection } from './collection/decide/credit-collection.js';
import { decideReverseCollectionCredit } from './collection/decide/reverse-collection-credit.js';
import { decideCreateCollection } from './collection/decide/create-collection.js';
import { decideCreateItemlessCollection } from './collection/decide/create-itemless-collection.js';
import { decideDefinePartialPayment } from './collection/decide/define-partial-payment.js';
import { decideDeleteCollectionDiscount } from './collection/decide/delete-collection-discount.js';
import { decideMarkPastDue } from './collection/decide/mark-past-due.js';
import { decideMarkUncollectible } from './collection/decide/mark-uncollectible.js';
import { decidePayOutOfBand } from './collection/decide/pay-out-of-band.js';
import { decideRecordChargeOutcome } from './collection/decide/record-charge-outcome.js';
import { decideRecordUnattemptablePayment } from './collection/decide/record-unattemptable-payment.js';
import { decideRefundCollection } from './collection/decide/refund-collection.js';
import { decideRetryCharge } from './collection/decide/retry-charge.js';
import { decideSendCollection } from './collection/decide/send-collection.js';
import { decideStartPayment } from './collection/decide/start-payment.js';
import { decideUpdateCollectionDiscounts } from './collection/decide/update-collection-discounts.js';
import { decideUpdateCollectionItems } from './collection/decide/update-collection-items.js';
import { decideUpdateCollectionTotal } from './collection/decide/update-collection-total.js';
import { decideVoidCollection } from './collection/decide/void-collection.js';

export * from './collection/collection.state.js';
export * from './collection/collection.commands.js';
export * from './collection/collection.events.js';
export { applyCollectionEvent } from './collection/collection.evolve.js';
export { refusedInState, priceCollection, checkDiscounts, normalizeDiscount } from './collection/collection.rules.js';
export * from './collection/registered-payment-plan.js';
export { decideAbandon } from './collection/decide/abandon-transaction.js';

/**
 * A collection: the object that is paid. It holds its transactions (payment attempts) and their
 * charges (gateway-level tries), so that "one successful charge per collection" is decided in one
 * stream: a payment starts only when no other attempt is in flight or awaiting the customer, and
 * that start is appended with the stream's expected revision.
 */
export const collectionDecider: Decider<CollectionCommand, CollectionState, CollectionEvent> = {
  initialState: initialCollectionState,

  decide(command, state) {
    if (command.type === 'CreateCollection') return decideCreateCollection(command, state);
    if (command.type === 'CreateItemlessCollection') return decideCreateItemlessCollection(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('collection', command.collectionId);
    switch (command.type) {
      case 'AbandonTransaction':
        return decideAbandonTransaction(command, state);
      case 'AttachInvoice':
        return decideAttachInvoice(command, state);
      case 'AdvanceDunning':
        return decideAdvanceDunning(command, state);
      case 'ApplyRegisteredPayment':
        return decideApplyRegisteredPayment(command, state);
      case 'CreditCollection':
        return decideCreditCollection(command, state);
      case 'ReverseCollectionCredit':
        return decideReverseCollectionCredit(command, state);
      case 'DefinePartialPayment':
        return decideDefinePartialPayment(command, state);
      case 'DeleteCollectionDiscount':
        return decideDeleteCollectionDiscount(command, state);
      case 'MarkPastDue':
        return decideMarkPastDue(command, state);
      case 'MarkUncollectible':
        return decideMarkUncollectible(command, state);
      case 'PayOutOfBand':
        return decidePayOutOfBand(command, state);
      case 'RecordChargeOutcome':
        return decideRecordChargeOutcome(command, state);
      case 'RecordUnattemptablePayment':
        return decideRecordUnattemptablePayment(command, state);
      case 'RefundCollection':
        return decideRefundCollection(command, state);
      case 'RetryCharge':
        return decideRetryCharge(command, state);
      case 'SendCollection':
        return decideSendCollection(command, state);
      case 'StartPayment':
        return decideStartPayment(command, state);
      case 'UpdateCollectionDiscounts':
        return decideUpdateCollectionDiscounts(command, state);
      case 'UpdateCollectionItems':
        return decideUpdateCollectionItems(command, state);
      case 'UpdateCollectionTotal':
        return decideUpdateCollectionTotal(command, state);
      case 'VoidCollection':
        return decideVoidCollection(command, state);
    }
  },

  evolve: evolveCollection,
};
