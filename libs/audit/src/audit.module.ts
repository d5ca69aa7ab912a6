import { Module } from '@nestjs/common';
import { TeamModule } from '#team/team.module.js';
import { AuditExport } from './application/audit-export.js';
import { AuditLog } from './application/audit-log.js';
import { AuditSigner } from './application/audit-signer.js';
import { AuditController } from './http/audit.controller.js';

/** The audit log (docs/audit.md): signed heads of the accounts' event chains, proofs, the public key. */
@Module({ imports: [TeamModule], controllers: [AuditController], providers: [AuditLog, AuditSigner, AuditExport], exports: [AuditLog, AuditExport] })
export class AuditModule {}
