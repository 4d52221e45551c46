/**
 * The AWS clients for a study found in a bucket (`attach`, `status`): the state read from S3
 * with clients of --region (or AWS_REGION), then clients of the study's own region, which the
 * verified state names.
 */
import { fleetClients, loadRemoteState, type FleetClients } from '../../fleet/index.js';
import type { FleetContext } from './context.js';
import { region } from './flags.js';

export async function studyClients(ctx: FleetContext, fleetId: string, bucket: string): Promise<FleetClients> {
  const finder = fleetClients({ region: region(ctx.values), profile: ctx.values.profile });
  let studyRegion: string;
  try {
    studyRegion = (await loadRemoteState(fleetId, finder, bucket)).region;
  } catch (err) {
    finder.destroy();
    throw err;
  }
  if (studyRegion === finder.region) return finder;
  finder.destroy();
  return fleetClients({ region: studyRegion, profile: ctx.values.profile });
}
