import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { GetCountryParametersQuery } from '../application/get-country-parameters.js';
import { ApiResource } from '#http/api-resource.js';

/** The country parameter catalog (read-only; Colombia). */
@ApiTags('country parameters')
@ApiBasicAuth()
@ApiResource('country_parameters')
@Controller('v1/country_parameters')
export class CountryParametersController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':country')
  @ApiOperation({
    summary:
      "Colombia's parameters (country CO): identity document types (DIAN codes), departments and municipalities (DANE DIVIPOLA codes; all 1,122 municipalities and non-municipal areas, municipalities_complete true), tax identifiers and retention concepts with default rates",
  })
  @ApiQuery({ name: 'department', required: false, description: 'Only the municipalities of this DANE department code' })
  get(@Param('country') country: string, @Query('department') department?: string) {
    return this.queries.execute(new GetCountryParametersQuery(country, typeof department === 'string' ? department : null));
  }
}
