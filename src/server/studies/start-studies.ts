/** The study service a ServerConfig asks for: its index in the store (the service) or in the bucket (Lambda, which has no store). */
import type { Db } from '../store/database.js';
import { StoreStudyIndex } from '../store/studies.js';
import { BucketStudyIndex } from './bucket-index.js';
import type { StudyConfig } from './study-config.js';
import { newServiceId, StudyService } from './study-service.js';

export function startStudies(config: StudyConfig, db: Db, log: (line: string) => void): StudyService {
  const store = new StoreStudyIndex(db);
  // The bucket's index reads with the service's own clients, in its first region allowed.
  const index = config.index === 'store' ? store : new BucketStudyIndex(() => service.clientsFor(config.regions[0]), config.bucket, log);
  const service: StudyService = new StudyService({ config, index, serviceId: store.serviceId(newServiceId), log });
  return service;
}
