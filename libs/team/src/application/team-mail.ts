import type { MailMessage } from '#mail/mail.port.js';

/**
 * The e-mails the team receives: an invitation and a password reset link. Spanish first, English
 * below (the reader has not chosen a language yet). Filed in the outbox under the account's test mode
 * (team mail has no mode; the test-mode outbox endpoint shows it).
 */
export function invitationMail(o: { accountId: string; accountName: string; to: string; role: string; url: string; expiresAt: Date; member: string }): MailMessage {
  const date = o.expiresAt.toISOString().slice(0, 10);
  return {
    to: o.to,
    accountId: o.accountId,
    mode: 'test',
    kind: 'team.invitation',
    refs: { member: o.member },
    subject: `${o.accountName}: invitación al panel / dashboard invitation`,
    text: [
      `${o.accountName} te invitó a su panel de cobros con el rol ${o.role}.`,
      `Crea tu contraseña en este enlace (sirve una sola vez, hasta el ${date}):`,
      o.url,
      '',
      `${o.accountName} invited you to its billing dashboard as ${o.role}.`,
      `Set your password with this link (single use, until ${date}):`,
      o.url,
    ].join('\n'),
  };
}

export function passwordResetMail(o: { accountId: string; to: string; url: string; member: string }): MailMessage {
  return {
    to: o.to,
    accountId: o.accountId,
    mode: 'test',
    kind: 'team.password_reset',
    refs: { member: o.member },
    subject: 'Restablece tu contraseña / Reset your password',
    text: [
      'Alguien pidió restablecer la contraseña de tu cuenta del panel. Si fuiste tú, usa este enlace (una sola vez, durante una hora):',
      o.url,
      'Si no fuiste tú, ignora este mensaje: tu contraseña no cambia.',
      '',
      'Someone asked to reset the password of your dashboard account. If it was you, use this link (single use, for one hour):',
      o.url,
      'If it was not you, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}
