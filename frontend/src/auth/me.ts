import { useQuery } from "@tanstack/react-query";
import { useApi } from "../api/ApiContext";
import { meQueries } from "../api/queries";
import type { components } from "../api/schema";
import { useAuth } from "./AuthContext";
import type { Role } from "./session";

export type Me = components["schemas"]["Me"];

/**
 * Who the signed-in user is to Lexora, from `Me`: their role (which picks
 * the screens), or `newcomer` for an identity without an account (a first
 * Google sign-in), who may become a teacher by creating a class. Until Me
 * answers, the sign-in's own role is used (the development sign-in knows
 * it; a Google sign-in does not: then `ready` is false). A failure of Me
 * other than no-account falls back to that role too, so a slow or failing
 * Me never locks a known user out.
 */
export interface Standing {
  role: Role | "newcomer" | null;
  ready: boolean;
  me: Me | undefined;
}

/** The caller's Me (meQueries.of), or null for an identity without an account. */
export function useMe() {
  const api = useApi();
  const { user } = useAuth();
  return useQuery(meQueries.of(api, user));
}

export function useStanding(): Standing {
  const { user } = useAuth();
  const me = useMe();
  if (!user) return { role: null, ready: true, me: undefined };
  if (me.data === null) return { role: "newcomer", ready: true, me: undefined };
  if (me.data) return { role: me.data.roles[0] ?? user.role, ready: true, me: me.data };
  return { role: user.role, ready: user.role !== null || me.isError, me: undefined };
}
