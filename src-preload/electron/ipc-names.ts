/** The only four IPC channel names Electron uses; contract channels travel inside them. */
export const IPC = {
  request: 'flightdeck:request',
  subscribe: 'flightdeck:subscribe',
  unsubscribe: 'flightdeck:unsubscribe',
  event: 'flightdeck:event',
} as const;
