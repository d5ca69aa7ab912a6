/**
 * The spec's gateway table: which payment methods each gateway offers. Labels are neutral
 * (`gateway_a` … `gateway_j`); `offline` is a pseudo-gateway whose method names are free-form.
 */
export const GATEWAY_METHODS = {
  gateway_a: ['card', 'pse', 'wallet_a', 'wallet_b', 'bank_transfer_a', 'bank_collect_a', 'quick_pay'],
  gateway_b: ['card', 'pse', 'efecty'],
  gateway_c: ['card', 'pse'],
  gateway_d: ['card', 'pse'],
  gateway_e: ['card', 'pse'],
  gateway_f: ['card', 'pse'],
  gateway_g: ['card', 'pse'],
  gateway_h: ['card', 'pse', 'efecty'],
  gateway_i: ['card'],
  gateway_j: ['card', 'bank_transfer', 'cash'],
} as const satisfies Record<string, readonly string[]>;

export type SimulatedGateway = keyof typeof GATEWAY_METHODS;
export const OFFLINE_GATEWAY = 'offline';
export type GatewayId = SimulatedGateway | typeof OFFLINE_GATEWAY;

/** Every gateway a new account has configured in test mode (the simulator connector). */
export const SIMULATED_GATEWAYS = Object.keys(GATEWAY_METHODS) as SimulatedGateway[];
export const ALL_GATEWAYS: GatewayId[] = [...SIMULATED_GATEWAYS, OFFLINE_GATEWAY];

/** Only these are tokenized into a stored payment method and can be charged automatically. */
export const TOKENIZABLE_METHODS = ['card', 'wallet_a', 'wallet_b'] as const;

export const isGatewayId = (value: unknown): value is GatewayId =>
  typeof value === 'string' && (ALL_GATEWAYS as string[]).includes(value);

export const isTokenizable = (type: string) => (TOKENIZABLE_METHODS as readonly string[]).includes(type);

/** Does `gateway` offer `method`? `offline` accepts any free-form name (1–64 characters). */
export function gatewayOffers(gateway: GatewayId, method: string): boolean {
  if (gateway === OFFLINE_GATEWAY) return typeof method === 'string' && method.trim().length > 0 && method.length <= 64;
  return (GATEWAY_METHODS[gateway] as readonly string[]).includes(method);
}

/** The spec's message for a gateway that is not configured on the account. */
export const gatewayNotConfiguredMessage = (gateway: string) => `The gateway ${gateway} is not configured in the account`;
