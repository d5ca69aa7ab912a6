import nodemailer, { type Transporter } from 'nodemailer';
import type { MailMessage, MailPort, SentMail } from './mail.port.js';

/**
 * Sends through an SMTP server with nodemailer (`SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com:465`;
 * `MAIL_FROM` is the sender). Nothing is kept in the service; the message id is the server's.
 */
export class SmtpMail implements MailPort {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    transport?: Transporter,
  ) {
    this.transport = transport ?? nodemailer.createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<SentMail> {
    const info = await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html ? { html: message.html } : {}),
      headers: { 'X-Billing-Kind': message.kind },
    });
    return { id: String(info.messageId) };
  }

  close(): void {
    this.transport.close();
  }
}
