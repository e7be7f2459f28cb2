// Stylesheets embedded as text (pages.ts).
declare module "*.css" {
  const text: string;
  export default text;
}
