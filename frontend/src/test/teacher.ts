import type { components } from "../api/schema";

/** Ada, a signed-in teacher, as renderApp's user. */
export const teacher = { id: "00000000-0000-4000-8000-00000000000a", displayName: "Ada", email: "ada@lexora.test", role: "teacher" as const };

/**
 * Ada's Me, in Tokyo: 9 hours east of UTC all year, so the end of a day
 * there is 14:59:59Z and her screens' dates differ from the browser's
 * whatever zone the tests run in.
 */
export const teacherMe = {
  id: teacher.id,
  display_name: "Ada",
  email: teacher.email,
  roles: ["teacher"],
  timezone: "Asia/Tokyo",
  classes: [],
  teaching: [],
} satisfies components["schemas"]["Me"];
