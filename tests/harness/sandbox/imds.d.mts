export interface ImdsIdentity {
  instanceId: string;
  instanceType: string;
  region: string;
  availabilityZone: string;
  imageId?: string;
  privateIp?: string;
  roleName?: string;
  accountId?: string;
  architecture?: string;
  hostname?: string;
}
export interface Imds {
  url: string;
  port: number;
  requests: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}
export function startImds(options: { host: string; port?: number; identity: ImdsIdentity; userData?: string }): Promise<Imds>;
