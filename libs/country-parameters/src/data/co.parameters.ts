/**
 * The country parameter catalog for Colombia (CO), shipped with the service (never fetched at run time).
 *
 * Sources:
 * - Departments and municipalities: DANE, "División Político-Administrativa de Colombia — DIVIPOLA"
 *   (https://geoportal.dane.gov.co/geovisores/territorio/consulta-divipola-division-politico-administrativa-de-colombia/),
 *   codes as published there: 2-digit department codes and 5-digit municipality codes. All 33
 *   departments (32 and Bogotá, D.C.) are here; the municipalities are the whole DIVIPOLA list (1,122
 *   entries: 1,102 municipalities, Bogotá D.C. and 19 non-municipal areas), generated into
 *   co.municipalities.ts by scripts/generate-co-municipalities.mjs (its header names the transcription
 *   it was taken from). `municipalities_complete: true` says so in the API.
 * - Identity document types: DIAN, Anexo técnico de Factura Electrónica de Venta v1.9 (Resolución
 *   000165 de 2023), table 13.2.1 "Tipos de documentos de identidad"
 *   (https://www.dian.gov.co/impuestos/factura-electronica/Documents/Anexo-Tecnico-Factura-Electronica-de-Venta-vr-1-9.pdf).
 * - Tax identifiers: the same annex, table 13.2.6.1 "Tributos" (01 IVA, 03 ICA, 04 INC, 05 ReteIVA,
 *   06 ReteRenta/ReteFuente, 07 ReteICA, …).
 * - Retention concepts and default rates: Decreto 1625 de 2016 (Decreto Único Reglamentario en materia
 *   tributaria) and DIAN's "Tabla de retención en la fuente" for 2024; ReteIVA 15 % of the IVA (Estatuto
 *   Tributario art. 437-1); ReteICA 9.66 ‰ is Bogotá's rate for most services (Acuerdo 65 de 2002) and
 *   varies by municipality and activity. The rates are defaults a merchant can override per account
 *   (invoicing settings) or per subscription (`invoice_retentions`).
 */

import { RETENTION_UNITS, type RetentionUnit } from '#shared/retentions.js';

export interface DocumentTypeEntry {
  /** The code customers use (`document_type`). */
  code: string;
  /** DIAN's numeric code on electronic invoices. */
  dian_code: string;
  name: string;
}

export interface DepartmentEntry {
  dane_code: string;
  name: string;
  /** Other names merchants write for it (matched ignoring case and accents). */
  aliases: string[];
}

export interface MunicipalityEntry {
  dane_code: string;
  name: string;
  department: string;
  /** DANE's class: a municipality, the capital district (Bogotá) or a non-municipal area (área no municipalizada). */
  kind: 'municipality' | 'capital_district' | 'non_municipal_area';
  /** Departments also accepted in an address (Bogotá, D.C. is also written as in Cundinamarca, whose capital it is). */
  also_in?: string[];
}

export interface TaxEntry {
  dian_code: string;
  code: string;
  name: string;
}

export interface RetentionConcept {
  code: string;
  /** The withholding it belongs to (the keys of `invoice_retentions`). */
  retention: 'retefte' | 'reteiva' | 'reteica';
  name: string;
  /** Default rate, in `unit`: per thousand (‰) for ReteICA, percent for ReteFuente and ReteIVA (as Colombia quotes them, and as `invoice_retentions` and the invoicing settings take them). */
  rate: string;
  unit: RetentionUnit;
  /** What the rate applies to. */
  base: 'taxable_base' | 'iva';
}

export const CO_DOCUMENT_TYPES: DocumentTypeEntry[] = [
  { code: 'RC', dian_code: '11', name: 'Registro civil' },
  { code: 'TI', dian_code: '12', name: 'Tarjeta de identidad' },
  { code: 'CC', dian_code: '13', name: 'Cédula de ciudadanía' },
  { code: 'TE', dian_code: '21', name: 'Tarjeta de extranjería' },
  { code: 'CE', dian_code: '22', name: 'Cédula de extranjería' },
  { code: 'NIT', dian_code: '31', name: 'NIT' },
  { code: 'PP', dian_code: '41', name: 'Pasaporte' },
  { code: 'OTHER', dian_code: '42', name: 'Documento de identificación extranjero' },
  { code: 'PEP', dian_code: '47', name: 'Permiso especial de permanencia' },
  { code: 'PPT', dian_code: '48', name: 'Permiso por protección temporal' },
  { code: 'NITE', dian_code: '50', name: 'NIT de otro país' },
  { code: 'NUIP', dian_code: '91', name: 'NUIP' },
];

export const CO_DEPARTMENTS: DepartmentEntry[] = [
  { dane_code: '05', name: 'Antioquia', aliases: [] },
  { dane_code: '08', name: 'Atlántico', aliases: [] },
  { dane_code: '11', name: 'Bogotá, D.C.', aliases: ['Bogotá', 'Bogota D.C.', 'Bogotá D.C.', 'Distrito Capital'] },
  { dane_code: '13', name: 'Bolívar', aliases: [] },
  { dane_code: '15', name: 'Boyacá', aliases: [] },
  { dane_code: '17', name: 'Caldas', aliases: [] },
  { dane_code: '18', name: 'Caquetá', aliases: [] },
  { dane_code: '19', name: 'Cauca', aliases: [] },
  { dane_code: '20', name: 'Cesar', aliases: [] },
  { dane_code: '23', name: 'Córdoba', aliases: [] },
  { dane_code: '25', name: 'Cundinamarca', aliases: [] },
  { dane_code: '27', name: 'Chocó', aliases: [] },
  { dane_code: '41', name: 'Huila', aliases: [] },
  { dane_code: '44', name: 'La Guajira', aliases: ['Guajira'] },
  { dane_code: '47', name: 'Magdalena', aliases: [] },
  { dane_code: '50', name: 'Meta', aliases: [] },
  { dane_code: '52', name: 'Nariño', aliases: [] },
  { dane_code: '54', name: 'Norte de Santander', aliases: [] },
  { dane_code: '63', name: 'Quindío', aliases: [] },
  { dane_code: '66', name: 'Risaralda', aliases: [] },
  { dane_code: '68', name: 'Santander', aliases: [] },
  { dane_code: '70', name: 'Sucre', aliases: [] },
  { dane_code: '73', name: 'Tolima', aliases: [] },
  { dane_code: '76', name: 'Valle del Cauca', aliases: ['Valle'] },
  { dane_code: '81', name: 'Arauca', aliases: [] },
  { dane_code: '85', name: 'Casanare', aliases: [] },
  { dane_code: '86', name: 'Putumayo', aliases: [] },
  { dane_code: '88', name: 'Archipiélago de San Andrés, Providencia y Santa Catalina', aliases: ['San Andrés', 'San Andrés y Providencia'] },
  { dane_code: '91', name: 'Amazonas', aliases: [] },
  { dane_code: '94', name: 'Guainía', aliases: [] },
  { dane_code: '95', name: 'Guaviare', aliases: [] },
  { dane_code: '97', name: 'Vaupés', aliases: [] },
  { dane_code: '99', name: 'Vichada', aliases: [] },
];

export { CO_MUNICIPALITIES, CO_MUNICIPALITY_COUNTS } from './co.municipalities.js';

/** Other names merchants write for municipalities (matched ignoring case and accents). */
export const CO_MUNICIPALITY_ALIASES: Record<string, string[]> = {
  '11001': ['Bogotá', 'Bogota D.C.', 'Bogotá D.C.'],
  '13001': ['Cartagena'],
  '54001': ['San José de Cúcuta'],
  // Short forms people write for DANE's official names.
  '52835': ['Tumaco'],
  '25843': ['Ubaté'],
  '76111': ['Buga'],
  '73443': ['Mariquita'],
  '73268': ['El Espinal'],
  '94343': ['Barrancominas'],
  '20443': ['Manaure'],
};

export const CO_TAXES: TaxEntry[] = [
  { dian_code: '01', code: 'IVA', name: 'Impuesto sobre las ventas' },
  { dian_code: '03', code: 'ICA', name: 'Impuesto de industria, comercio y aviso' },
  { dian_code: '04', code: 'INC', name: 'Impuesto nacional al consumo' },
  { dian_code: '05', code: 'ReteIVA', name: 'Retención sobre el IVA' },
  { dian_code: '06', code: 'ReteRenta', name: 'Retención sobre la renta (ReteFuente)' },
  { dian_code: '07', code: 'ReteICA', name: 'Retención sobre el ICA' },
];

export const CO_RETENTION_CONCEPTS: RetentionConcept[] = ([
  { code: 'retefte_services_general', retention: 'retefte', name: 'Servicios en general (declarantes)', rate: '4', base: 'taxable_base' },
  { code: 'retefte_purchases_general', retention: 'retefte', name: 'Compras generales (declarantes)', rate: '2.5', base: 'taxable_base' },
  { code: 'retefte_fees', retention: 'retefte', name: 'Honorarios y comisiones (personas jurídicas)', rate: '11', base: 'taxable_base' },
  { code: 'retefte_software', retention: 'retefte', name: 'Licenciamiento o derecho de uso de software', rate: '3.5', base: 'taxable_base' },
  { code: 'reteiva_general', retention: 'reteiva', name: 'Retención de IVA (15 % del impuesto)', rate: '15', base: 'iva' },
  { code: 'reteica_bogota_services', retention: 'reteica', name: 'ReteICA Bogotá, actividades de servicios (9,66 por mil)', rate: '9.66', base: 'taxable_base' },
] as Omit<RetentionConcept, 'unit'>[]).map((c) => ({ ...c, unit: RETENTION_UNITS[c.retention] }));
