import { randomBytes } from 'node:crypto';

/** A new service-made id: 128 random bits, 22 URL-safe characters. */
export const newId = () => randomBytes(16).toString('base64url');

export const now = () => new Date().toISOString();
