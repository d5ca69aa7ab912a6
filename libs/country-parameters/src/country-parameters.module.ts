import { Module } from '@nestjs/common';
import { GetCountryParametersHandler } from './application/get-country-parameters.js';
import { CountryParametersController } from './http/country-parameters.controller.js';

/** The country parameter catalog: static data shipped with the service (libs/country-parameters/src/data). */
@Module({ controllers: [CountryParametersController], providers: [GetCountryParametersHandler] })
export class CountryParametersModule {}
