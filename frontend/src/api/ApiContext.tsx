import { createContext, useContext, useMemo, type ReactNode } from "react";
import { useAuth } from "../auth/AuthContext";
import { newApi, type Api } from "./client";

const ApiContext = createContext<Api | null>(null);

/** The typed functions client, authenticated as the signed-in user. */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error("useApi outside ApiProvider");
  return api;
}

export function ApiProvider({ children }: { children: ReactNode }) {
  const { token } = useAuth();
  const api = useMemo(() => newApi(token), [token]);
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}
