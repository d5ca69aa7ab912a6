import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ALL_GATEWAYS } from '#payments/domain/gateways.js';

export class ConfigureGatewayDto {
  @ApiProperty({ enum: ALL_GATEWAYS, example: 'gateway_b', description: 'The gateway to configure in the mode of the key.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  gateway: string;
}

export class GatewayResponse {
  @ApiProperty({ enum: ['gateway'] })
  object: 'gateway';

  @ApiProperty({ enum: ALL_GATEWAYS, example: 'gateway_a' })
  id: string;

  @ApiProperty({ enum: ['simulator', 'offline'], description: 'What carries the payments: no real connector exists yet.' })
  connector: string;

  @ApiProperty({ type: [String], example: ['card', 'pse'], description: 'Methods the gateway offers; [] for offline (free-form names).' })
  methods: string[];

  @ApiProperty({ enum: ['test', 'live'] })
  mode: string;
}
