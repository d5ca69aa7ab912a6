import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '#shared/errors.js';
import { CO_DEPARTMENTS, CO_DOCUMENT_TYPES, CO_MUNICIPALITIES, CO_RETENTION_CONCEPTS, CO_TAXES } from '../data/co.parameters.js';

export class GetCountryParametersQuery {
  constructor(
    readonly country: string,
    readonly department: string | null = null,
  ) {}
}

/** The read-only country parameter catalog (Colombia only): document types, departments, municipalities, taxes, retention concepts. */
@QueryHandler(GetCountryParametersQuery)
export class GetCountryParametersHandler implements IQueryHandler<GetCountryParametersQuery> {
  async execute({ country, department }: GetCountryParametersQuery) {
    if (country.toUpperCase() !== 'CO') throw notFound('country_parameters', country, 'country');
    return {
      object: 'country_parameters',
      country: 'CO',
      source: 'DANE DIVIPOLA (departments, municipalities); DIAN Anexo técnico de factura electrónica v1.9 (document types, taxes); Decreto 1625 de 2016 (retention rates). See libs/country-parameters/src/data/co.parameters.ts.',
      document_types: CO_DOCUMENT_TYPES,
      departments: CO_DEPARTMENTS.map(({ dane_code, name }) => ({ dane_code, name })),
      municipalities: CO_MUNICIPALITIES.filter((m) => !department || m.department === department).map(({ dane_code, name, department: d, kind }) => ({ dane_code, name, department: d, kind })),
      municipalities_complete: true,
      taxes: CO_TAXES,
      retention_concepts: CO_RETENTION_CONCEPTS,
    };
  }
}
