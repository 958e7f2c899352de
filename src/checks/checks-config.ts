export const CHECK_ENGINE_CHOICES = ['embedded', 'aws', 'off'] as const;

export type CheckEngineChoice = (typeof CHECK_ENGINE_CHOICES)[number];

/** How the live check engines run (docs/checks.md). */
export type ChecksConfig = {
  /** Unset: one per core; 0: none in this process (it runs no jobs, `npm run worker` processes run the checks). */
  workers: number | undefined;
  queueLimit: number;
  timeoutMs: number;
  engines: { document: CheckEngineChoice; faceMatch: CheckEngineChoice; liveness: CheckEngineChoice; antiSpoof: CheckEngineChoice };
  aws: { region: string | undefined; endpoint: string | undefined; timeoutMs: number };
};
