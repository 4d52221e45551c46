/** moto server on a free loopback port: its endpoint, and a stop (SIGTERM, then SIGKILL after 3 s). */
export function startMoto(): Promise<{ endpoint: string; stop(): Promise<void> }>;
