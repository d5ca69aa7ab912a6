import { ValidateIf } from 'class-validator';

/** The field may be left out, but when sent it must not be null (unlike @IsOptional, which lets null through). */
export const OptionalNotNull = () => ValidateIf((_object, value) => value !== undefined);
