import type { Catalog } from './i18n.js';

/**
 * The words of the statuses of subscriptions, collections and charges (`status.<value>`), one set for
 * every page that shows them: the customer portal and the merchant dashboard. The subscription's are
 * feminine (suscripción), the collection's and the charge's masculine (cobro, cargo); `past_due` reads
 * "Pago vencido" for both.
 */
export const STATUS_MESSAGES: Catalog = {
  'es-CO': {
    'status.active': 'Activa', 'status.past_due': 'Pago vencido', 'status.paused': 'En pausa', 'status.pending_cancel': 'Se cancela al final del periodo',
    'status.canceled': 'Cancelada', 'status.trialing': 'En prueba', 'status.incomplete': 'Pago inicial pendiente', 'status.unpaid': 'Sin pagar',
    'status.scheduled': 'Programada', 'status.ended': 'Finalizada', 'status.expired': 'Vencida',
    'status.pending': 'Pendiente', 'status.paid': 'Pagado', 'status.processing': 'En proceso', 'status.voided': 'Anulado', 'status.uncollectible': 'Incobrable', 'status.refunded': 'Reembolsado',
    'status.failed': 'Fallido',
  },
  en: {
    'status.active': 'Active', 'status.past_due': 'Past due', 'status.paused': 'Paused', 'status.pending_cancel': 'Cancels at period end',
    'status.canceled': 'Canceled', 'status.trialing': 'Trial', 'status.incomplete': 'First payment pending', 'status.unpaid': 'Unpaid',
    'status.scheduled': 'Scheduled', 'status.ended': 'Ended', 'status.expired': 'Expired',
    'status.pending': 'Pending', 'status.paid': 'Paid', 'status.processing': 'Processing', 'status.voided': 'Void', 'status.uncollectible': 'Uncollectible', 'status.refunded': 'Refunded',
    'status.failed': 'Failed',
  },
};
