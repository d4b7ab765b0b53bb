/** Cold-start reference: a handler that does nothing, bundled like every real one. */
export const handler = async () => ({ statusCode: 204 });
