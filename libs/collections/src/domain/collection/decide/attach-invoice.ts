import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref } from '../collection.rules.js';

/**
 * The collection's fiscal invoice: the first invoice named wins (a second, racing one records
 * nothing, and the caller uses the one attached); its number is added once the provider issued it.
 */
export function decideAttachInvoice(command: CommandOf<'AttachInvoice'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  if (f.invoice && f.invoice !== command.invoiceId) return [];
  if (f.invoice === command.invoiceId && (command.invoiceNumber === null || f.invoice_number === command.invoiceNumber)) return [];
  const invoices = f.invoices.includes(command.invoiceId) ? f.invoices : [...f.invoices, command.invoiceId];
  return [{ type: 'collection.invoice_attached', data: { ...ref(state, command.collectionId), invoice: command.invoiceId, invoice_number: command.invoiceNumber ?? f.invoice_number, invoices } }];
}
