/** A registry file that cannot be read as the registry publishes it: the import refuses it (exit 2). */
export class RegistryFileError extends Error {
  override readonly name: string = 'RegistryFileError';
}
