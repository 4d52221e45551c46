/**
 * A local AWS API emulator (moto server) for tests of the cloud code: real AWS SDK v3 calls,
 * pointed at it with AWS_ENDPOINT_URL, started on a free port per test file. The launcher is the
 * harness's, which the rehearsal uses too.
 */
export { awsDefaultVpc, motoSkipReason, startMoto, type Moto } from '../harness/moto.js';
