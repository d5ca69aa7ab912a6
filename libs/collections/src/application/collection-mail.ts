import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { EventMailHandler } from '#mail/event-mail-follower.js';
import type { MailMessage } from '#mail/mail.port.js';
import { formatDate, formatMoney } from '#web/format.js';
import { eventIdFromUuid } from '#shared/ids.js';
import type { ProjectionEngine } from '#projection-runtime/projection-engine.js';

/** Statuses in which a collection still waits for the customer's payment. */
const AWAITING = ['pending', 'past_due'];

/**
 * What the customer is told when a `collect` collection is sent (`collection.sent`) and at each
 * dunning reminder (`collection.reminder`): the merchant, the amount, the due date and the
 * collection page's address, in Spanish (the page itself offers English). Sent after its due date,
 * it is an overdue notice ("vencido desde el …") instead. A collection already paid,
 * void or uncollectible by the time the event is handled, or a customer without an e-mail, gets no
 * message.
 */
export function collectionMailHandler(store: ReadStore, projections: ProjectionEngine): EventMailHandler {
  return {
    name: 'mail:collections',
    types: ['collection.sent', 'collection.reminder'],
    async messageFor(event: RecordedEvent): Promise<MailMessage | null> {
      await projections.waitFor(event.position);
      const data = event.data as { id: string; customer: string; checkout_url?: string; dunning_step?: number };
      const collection = await store.get<Record<string, unknown>>('collections', data.id);
      if (!collection || !AWAITING.includes(String(collection.status))) return null;
      const customer = await store.get<{ email?: string | null; name?: string | null; erased_at?: string }>('customers', data.customer);
      // An erased customer is mailed no more (docs/personal-data.md).
      if (!customer?.email || customer.erased_at) return null;
      const account = await store.get<{ name?: string }>('accounts', String(collection._account));
      const merchant = account?.name ?? '';
      const amount = formatMoney(String(collection.total), String(collection.currency), 'es-CO');
      const due = formatDate(collection.due_date as string | null, 'es-CO');
      const url = String(data.checkout_url ?? collection.checkout_url);
      const reminder = event.type === 'collection.reminder';
      // Sent after its due date (an overdue invoice uploaded, a past-due collection sent again): an overdue notice, never a due date ahead.
      const sentAt = (event.data as { sent_at?: string }).sent_at;
      const overdue = !reminder && !!due && !!sentAt && Date.parse(sentAt) > Date.parse(String(collection.due_date));
      const subject = reminder
        ? `Recordatorio: tu pago de ${amount} a ${merchant} está pendiente`
        : overdue
          ? `${merchant}: tu pago de ${amount} está vencido desde el ${due}`
          : `${merchant}: tienes un pago de ${amount}${due ? ` que vence el ${due}` : ''}`;
      const hello = customer.name ? `Hola ${customer.name},` : 'Hola,';
      const text = [
        hello,
        '',
        reminder
          ? `Te recordamos que tu pago a ${merchant} sigue pendiente.`
          : overdue
            ? `${merchant} te envió un cobro vencido: su fecha límite de pago ya pasó.`
            : `${merchant} te envió un cobro.`,
        '',
        `Valor: ${amount}`,
        ...(due ? [overdue ? `Venció el: ${due}` : `Fecha límite: ${due}`] : []),
        '',
        `Paga en línea aquí: ${url}`,
        '',
        'Si ya pagaste, ignora este mensaje.',
      ].join('\n');
      return {
        to: customer.email,
        subject,
        text,
        accountId: String(collection._account),
        mode: collection.is_test ? 'test' : 'live',
        kind: event.type,
        refs: { collection: data.id, customer: data.customer, event: eventIdFromUuid(event.id) },
      };
    },
  };
}
