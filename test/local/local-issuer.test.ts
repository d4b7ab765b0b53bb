/**
 * The test service is its own token issuer whatever the shell says: JWT_ISSUER/JWT_AUDIENCE
 * in the environment select an external issuer only for `npm start` (issuer: 'environment').
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/http';
import { startTestService } from '#test/support/service';

afterEach(() => {
  delete process.env.JWT_ISSUER;
  delete process.env.JWT_AUDIENCE;
});

describe('the test service', () => {
  it('issues and accepts its own tokens even when the environment names another issuer', async () => {
    process.env.JWT_ISSUER = 'https://issuer.example.com/';
    process.env.JWT_AUDIENCE = 'someone-else';
    const svc = await startTestService();
    try {
      const { api } = await newUser(svc);
      expect((await api.get('/')).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});
