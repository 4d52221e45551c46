export const IMDS_ADDRESS: string;
export interface MemberNetwork {
  name: string;
  nsPath: string;
  hostAddress: string;
  memberAddress: string;
  hostInterface: string;
  allow(imdsPort: number, awsPorts: number[]): void;
  close(): void;
}
export function createMemberNetwork(name: string): MemberNetwork;
