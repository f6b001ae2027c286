/** Asks the Python extension (ms-python.python, optional) for the active environment's interpreter. */
import * as vscode from 'vscode';

/** The part of the Python extension's API used here; checked at run time because it is not a dependency. */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

export async function activePythonInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (extension === undefined) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const path = api.environments?.getActiveEnvironmentPath(resource)?.path;
    if (path !== undefined && path !== '') return path;
    return api.settings?.getExecutionDetails(resource).execCommand?.[0];
  } catch {
    return undefined;
  }
}
